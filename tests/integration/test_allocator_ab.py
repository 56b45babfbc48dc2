"""Allocator configurations A/B and compile context in snapshots: parsing, frames, verdict, page."""

from dataclasses import replace

from allocatordata import MIB
from allocatordata import ab_configs as _configs

from runtime_lab.allocator.report import ab as ab_report
from runtime_lab.allocator.report import ab_charts
from runtime_lab.allocator.result import AllocatorResult, SnapshotInfo
from runtime_lab.allocator.run import ab as ab_run
from runtime_lab.allocator.run import memtrace
from runtime_lab.registry import result_from_record
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec


def _result(**kw):
    base = AllocatorResult(
        device="cuda:0",
        dtype="float32",
        scenarios=("sequence",),
        sequence=("1024x1024", "4096x4096"),
        compare_side=8192,
        steps=(),
        trace=(),
        trace_points=0,
        rss=(),
    )
    return replace(base, **kw)


def test_the_childs_json_becomes_a_run_per_configuration():
    default, expandable = _configs()
    assert [s.shape for s in default.steps] == [(1024, 1024), (4096, 4096)]
    assert default.end_reserved_bytes == 148 * MIB and expandable.steps[1].expandable_segments == 1
    failed = ab_run.parse("default", {"error": "OutOfMemoryError: CUDA out of memory"})
    assert failed.error.startswith("OutOfMemoryError") and failed.steps == ()


def test_the_frame_chart_and_verdict_use_the_measured_numbers():
    result = _result(alloc_configs=_configs())
    frame = ab_report.config_frame(result)
    assert list(frame["slack_mib"]) == [16.0, 80.0, 16.0, 16.0]
    chart = ab_charts.config_chart(frame).to_dict()
    assert chart["encoding"]["tooltip"]
    said = ab_report.verdict(result)
    assert "up to 80.0 MiB" in said and "up to 16.0 MiB" in said
    assert "expandable segments stranded less here" in said
    charts, tables, notes = ab_report.parts(result)
    assert len(charts) == 1 and tables[0][0].startswith("Allocator configurations A/B")
    assert notes == [said]


def test_a_failed_configuration_is_said_and_no_verdict_is_guessed():
    broken = ab_run.parse("expandable_segments:True", {"error": "boom"})
    result = _result(alloc_configs=(_configs()[0], broken))
    assert ab_report.verdict(result) is None
    _, _, notes = ab_report.parts(result)
    assert notes == ["Allocator expandable_segments:True: failed: boom"]


def _snapshot_info(scenario, contexts, recorded=True):
    return SnapshotInfo(
        scenario,
        "",
        0,
        100,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        compile_contexts=contexts,
        compile_context_recorded=recorded,
    )


def test_compile_contexts_are_counted_per_graph():
    snapshot = {
        "device_traces": [
            [
                {"action": "alloc", "compile_context": "Torch-Compiled Region: 0/0"},
                {"action": "alloc", "compile_context": "Torch-Compiled Region: 0/0"},
                {"action": "free_requested", "compile_context": "Torch-Compiled Region: 0/0"},
                {"action": "alloc", "compile_context": "N/A"},
                {"action": "alloc"},
            ]
        ]
    }
    assert memtrace.compile_contexts(snapshot) == {"Torch-Compiled Region: 0/0": 2}
    result = _result(snapshots=(_snapshot_info("compiled", (("Torch-Compiled Region: 0/0", 2),)),))
    frame = ab_report.context_frame(result)
    assert frame.to_dict("records") == [
        {"scenario": "compiled", "compiled graph": "Torch-Compiled Region: 0/0", "allocations": 2}
    ]
    assert ab_report.context_notes(result) == []


def test_a_torch_without_compile_context_or_with_none_found_is_said():
    old = _result(snapshots=(_snapshot_info("sequence", (), recorded=False),))
    assert "PR 152707" in ab_report.context_notes(old)[0]
    none = _result(snapshots=(_snapshot_info("compiled", ()),))
    assert "no allocation of the compiled scenarios" in ab_report.context_notes(none)[0]
    older_run = _result(snapshots=(_snapshot_info("compiled", (), recorded=None),))
    assert ab_report.context_notes(older_run) == []


def test_on_cpu_the_ab_option_says_it_needs_cuda(tmp_path):
    jobs = JobManager(data_dir=tmp_path, timeout_s=300)
    try:
        options = {
            "alloc_ab": True,
            "outside": True,
            "scenarios": "sequence",
            "shapes": "64x64,128x128",
        }
        spec = build_spec("allocator", "64x64", device="cpu", options=options)
        job = jobs.wait(jobs.submit(spec), 300)
    finally:
        jobs.close()
    assert job.state == "done", job.error
    result = result_from_record("allocator", job.as_run()["result"])
    assert result.alloc_configs == ()
    assert any(s.startswith("alloc_ab: needs CUDA") for s in result.skipped)
    assert any(s.startswith("outside: needs CUDA") for s in result.skipped)
    assert result.outside is None


def test_memory_outside_the_allocator_per_step():
    from runtime_lab.allocator.report import outside as outside_frames
    from runtime_lab.allocator.run import outside as run_outside

    def reading(step, used_mib, reserved_mib):
        return {
            "step": step,
            "device_used_bytes": used_mib * MIB,
            "nvml_used_bytes": None,
            "reserved_bytes": reserved_mib * MIB,
            "allocated_bytes": 0,
            "detail": "",
        }

    doc = {
        "steps": [
            reading("CUDA context", 1500, 0),
            reading("first cuBLAS call", 1540, 34),
            reading("first compiled Triton kernel", 1546, 36),
        ],
        "nccl": {"state": "skipped", "detail": "this torch build has no NCCL"},
    }
    run = run_outside.parse(1000 * MIB, doc)
    frame = outside_frames.outside_frame(_result(outside=run))
    assert list(frame["process_mib"]) == [500.0, 540.0, 546.0]
    assert list(frame["outside_mib"]) == [500.0, 506.0, 510.0]
    assert list(frame["outside_added_mib"]) == [500.0, 6.0, 4.0]
    assert frame["where"][0].startswith("the context itself")
    charts, tables, notes = outside_frames.parts(_result(outside=run))
    assert len(charts) == 1 and tables[0][1] is not None
    assert "NCCL step: skipped: this torch build has no NCCL" in notes
    spec = charts[0][1].to_dict()
    assert spec["encoding"]["tooltip"]
    failed = run_outside.parse(0, {"error": "RuntimeError: no"})
    assert outside_frames.parts(_result(outside=failed))[2] == [
        "Memory outside the allocator: failed: RuntimeError: no"
    ]
