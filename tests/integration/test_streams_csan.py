"""CSAN's verdicts next to the lab's trials: the child's output read back, agreement, the page."""

import copy
import traceback

from runtime_lab.registry import result_from_record
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec
from runtime_lab.streams.report import csan as csan_frames
from runtime_lab.streams.result import StreamsResult, VariantResult
from runtime_lab.streams.run import csan as run_csan


def _access(stream, op, kind, line):
    return {
        "stream": stream,
        "operator": op,
        "access": kind,
        "aliases": ["self"],
        "is_output": kind == "write",
        "user_line": line,
    }


# the child's JSON document on the H200 for three orderings, as lab/child.run_module reads it
CHILD_DOC = {
    "verdicts": [
        {"variant": "correct", "verdict": "clean", "races": [], "trials": 2, "error": None},
        {
            "variant": "missing-producer-wait",
            "verdict": "race",
            "races": [
                {
                    "tensor": "x",
                    "current": _access(
                        "side",
                        "aten::mm",
                        "read",
                        "variants.py:87 in side_matmul: z = a @ self.y",
                    ),
                    "previous": _access(
                        "default",
                        "aten::normal_",
                        "write",
                        "variants.py:63 in produce: self.x.normal_(generator=self.generator)",
                    ),
                }
            ],
            "trials": 2,
            "error": None,
        },
        {"variant": "early-free", "verdict": "clean", "races": [], "trials": 2, "error": None},
    ]
}


def _variant(name, expected, wrong, reused=0):
    return VariantResult(name, "", expected, 20, wrong, (0.0,) * 20, reused, (1.0,), (1.0,), None)


def _result():
    found, note = run_csan.parse(CHILD_DOC)
    return StreamsResult(
        device="cuda:0",
        streams_supported=True,
        max_abs_diff=0.0,
        tolerance_passed=True,
        rtol=1e-3,
        atol=1e-3,
        output_shape=(8, 8),
        steps=(),
        timings=(),
        note="",
        variants=(
            _variant("correct", True, 0),
            _variant("missing-producer-wait", False, 17),
            _variant("early-free", False, 0, reused=20),
        ),
        csan=found,
        csan_note=note,
    )


def test_the_childs_json_becomes_verdicts():
    found, note = run_csan.parse(CHILD_DOC)
    assert [v.verdict for v in found] == ["clean", "race", "clean"]
    race = found[1].races[0]
    assert race.tensor == "x" and race.current.stream == "side" and race.previous.access == "write"
    assert "2 trial(s)" in note
    assert run_csan.parse({"error": "the sanitizer did not start"}) == (
        (),
        "the sanitizer did not start",
    )
    assert run_csan.parse({"verdicts": []}) == (
        (),
        "TORCH_CUDA_SANITIZER=1 in a child process, 0 trial(s) per ordering",
    )


def test_agreement_names_what_csan_misses():
    frame = csan_frames.csan_frame(_result()).set_index("ordering")
    assert frame.loc["correct", "agreement"] == "both pass"
    assert frame.loc["missing-producer-wait", "agreement"] == "both flag it"
    assert (
        "side: read by aten::mm (self) at variants.py:87"
        in frame.loc["missing-producer-wait", "access CSAN could not order"]
    )
    assert frame.loc["early-free", "agreement"].startswith("CSAN misses it (allocator reuse)")
    assert frame.loc["early-free", "lab: wrong / trials"] == "0/20"
    notes = csan_frames.csan_notes(_result())
    assert any("block-reuse check" in n for n in notes)


def test_a_flagged_ordered_variant_is_called_out():
    result = _result()
    doc = copy.deepcopy(CHILD_DOC)
    doc["verdicts"][0]["verdict"] = "race"  # the ordered variant flagged
    flagged = run_csan.parse(doc)[0]
    from dataclasses import replace

    frame = csan_frames.csan_frame(replace(result, csan=flagged)).set_index("ordering")
    assert frame.loc["correct", "agreement"].startswith("CSAN flags an ordered variant")


def test_user_line_is_the_innermost_lab_frame():
    from runtime_lab.streams.run.csan_child import user_line

    stack = traceback.StackSummary.from_list(
        [
            (
                "/x/runtime_lab/streams/run/csan_child.py",
                70,
                "verdict",
                "VARIANT_FUNCTIONS[name](w)",
            ),
            ("/x/runtime_lab/streams/run/variants.py", 87, "side_matmul", "z = a @ self.y"),
            ("/torch/_ops.py", 10, "__call__", "return self._op(*args)"),
        ]
    )
    assert user_line(stack) == "variants.py:87 in side_matmul: z = a @ self.y"
    assert user_line(None) is None


def test_the_report_puts_csan_beside_the_orderings():
    from runtime_lab.streams.report import build as report

    spec = build_spec("streams", "8x8", device="cpu").to_dict()
    rep = report.build({"id": 1, "spec": spec}, _result())
    titles = [t for t, _ in rep.tables]
    assert titles[0] == "Orderings" and titles[1].startswith("CUDA sanitizer (CSAN)")


def test_on_cpu_the_sanitizer_option_says_it_needs_a_gpu(tmp_path):
    jobs = JobManager(data_dir=tmp_path, timeout_s=300)
    try:
        spec = build_spec(
            "streams", "64x64", device="cpu", warmup=1, repeat=3, options={"sanitizer": True}
        )
        job = jobs.wait(jobs.submit(spec), 300)
    finally:
        jobs.close()
    assert job.state == "done", job.error
    result = result_from_record("streams", job.as_run()["result"])
    assert result.csan == () and "needs a GPU" in result.csan_note
