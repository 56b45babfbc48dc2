"""The recompiles experiment through the real worker on CPU: the issue's must-show cases."""

import pytest

from runtime_lab.recompiles.report import build as recompiles_report
from runtime_lab.registry import build_report as build
from runtime_lab.registry import result_from_record, summary
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

pytestmark = pytest.mark.slow
ISSUE = "512x512,1024x1024,2048x2048,3000x3000,4096x4096,512x512"
FAST = {"backend": "eager", "bucket": "off", "graph_break": "off"}


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    manager = JobManager(data_dir=tmp_path_factory.mktemp("recompiles"), timeout_s=600)
    yield manager
    manager.close()


def _run(jobs, **options):
    spec = build_spec("recompiles", "8", device="cpu", warmup=1, repeat=3, options=options)
    job = jobs.wait(jobs.submit(spec), 600)
    assert job.state == "done", job.error
    run = job.as_run()
    return run, result_from_record("recompiles", run["result"])


@pytest.fixture(scope="module")
def issue_run(jobs):
    return _run(jobs, shapes=ISSUE, backend="eager")


def _modes(result):
    return {m.mode: m for m in result.modes}


def test_graph_counts_per_dynamic_mode(issue_run):
    _, result = issue_run
    modes = _modes(result)
    assert list(modes) == [
        "dynamic=False",
        "dynamic=None",
        "dynamic=True",
        "mark_dynamic",
        "bucketed",
    ]
    counts = {name: m.unique_graphs for name, m in modes.items()}
    assert counts == {
        "dynamic=False": 5,  # one graph per distinct shape; the final 512² is a cache hit
        "dynamic=None": 2,  # static 512², then one dynamic graph after the size changes
        "dynamic=True": 1,
        "mark_dynamic": 1,  # dims 0 and 1 marked: no recompile
        "bucketed": 4,  # 3000² padded to 4096² shares its graph
    }
    static = modes["dynamic=False"]
    assert [c.event for c in static.calls] == ["compile"] + ["recompile"] * 4 + ["cache hit"]
    assert static.compiles == 5 and static.recompiles == 4 and static.cache_hits == 1
    assert static.calls[-1].compile_id == "0/0"  # the first frame serves the repeated shape
    auto = modes["dynamic=None"]
    assert [c.compile_id for c in auto.calls] == ["0/0", "0/1", "0/1", "0/1", "0/1", "0/1"]
    assert all(not m.limit_hit and m.compile_s > 0 for m in modes.values())
    assert static.final_guards and "TENSOR_MATCH" in static.final_guards
    assert static.final_compile_id == "0/4" and auto.final_compile_id == "0/1"


def test_second_call_names_the_size_change(issue_run):
    _, result = issue_run
    for name in ("dynamic=False", "dynamic=None"):
        second = _modes(result)[name].calls[1]
        assert second.event == "recompile"
        assert "size mismatch at index 0. expected 512, actual 1024" in second.reason
        assert any("expected 512, actual 1024" in f for f in second.guard_failures)
    assert _modes(result)["dynamic=True"].calls[1].reason is None


def test_steady_state_eager_reference_and_bucketing(issue_run):
    _, result = issue_run
    static = _modes(result)["dynamic=False"]
    assert all(c.steady_ms > 0 and c.eager_ms > 0 for c in static.calls)
    assert static.timing_compiles == 0  # timing reused the frames the sequence compiled
    bucketed = _modes(result)["bucketed"].calls
    assert bucketed[3].requested_shape == (3000, 3000) and bucketed[3].shape == (4096, 4096)
    assert bucketed[3].padding_bytes == (4096**2 - 3000**2) * 4 * 3
    assert bucketed[4].event == "cache hit"


def test_graph_break_variant(issue_run):
    _, result = issue_run
    g = result.graph_break
    assert g.variant == "item-branch" and g.error is None
    assert g.unique_graphs == 2 and g.graph_breaks == 1
    assert "item()" in g.reasons[0] and g.matches_eager
    assert g.fullgraph_error_type and g.fullgraph_error


def test_summary_keys_and_report(issue_run):
    run, _ = issue_run
    figures = summary(run)
    for key in ("unique_graphs", "recompiles", "recompile_reasons", "compile_s"):
        assert set(figures[key]) >= {"dynamic=False", "dynamic=None", "dynamic=True"}, key
    assert figures["unique_graphs"]["dynamic=False"] == 5
    assert figures["recompiles"]["dynamic=None"] == 1
    assert "expected 512, actual 1024" in figures["recompile_reasons"]["dynamic=False"][0]
    assert figures["graph_breaks"]["graph_breaks"] == 1
    assert figures["recompile_limit"]["dynamic=False"] == {
        "limit": 8,
        "compiles": 5,
        "hit": False,
        "state": None,
    }
    report = build(run)
    # the experiment's own warnings (a limit hit) are none; the lab's process warnings (a
    # contended host, a flagged probe) depend on what else this machine runs, so not asserted
    own = recompiles_report.build(run, result_from_record("recompiles", run["result"]))
    assert report.ok and not own.warnings
    assert set(own.warnings) <= set(report.warnings)
    assert report.headline.startswith(
        "recompiles pointwise (rows × cols) CPU eager, 6 calls along rows, cols: dynamic=False 5"
    )
    for _, chart in report.charts:
        chart.to_dict()


def test_dtype_change_gives_a_dtype_mismatch_reason(jobs):
    _, result = _run(jobs, shapes="512x512,512x512:float16", modes="dynamic=True", **FAST)
    calls = result.modes[0].calls
    assert [c.event for c in calls] == ["compile", "recompile"]
    assert calls[1].dtype == "float16"
    assert "dtype mismatch. expected Float, actual Half" in calls[1].reason


def test_recompile_limit_with_fullgraph_is_a_state_not_a_crash(jobs):
    run, result = _run(jobs, shapes="growing-batch", modes="dynamic=False", fullgraph=True, **FAST)
    mode = result.modes[0]
    assert mode.error is None and mode.compiles == 8 and mode.unique_graphs == 8
    assert mode.limit_hit and "recompile_limit (8)" in mode.limit_state
    assert "FailOnRecompileLimitHit" in mode.limit_state
    assert [c.event for c in mode.calls[8:]] == ["failed", "failed"]
    assert "FailOnRecompileLimitHit" in mode.calls[8].error
    report = build(run)
    assert any("hit recompile_limit (8) at call 9" in w for w in report.warnings)
    assert summary(run)["recompile_limit"]["dynamic=False"]["hit"] is True
    after = _run(jobs, shapes="8x8,16x16", modes="dynamic=True", **FAST)[1]  # worker still fine
    assert after.modes[0].unique_graphs == 1


def test_recompile_limit_without_fullgraph_falls_back_to_eager(jobs):
    _, result = _run(jobs, shapes="growing-batch", modes="dynamic=False", recompile_limit=4, **FAST)
    mode = result.modes[0]
    assert mode.compiles == 4 and mode.limit_hit and mode.eager_fallbacks == 6
    assert "ran eager" in mode.limit_state and mode.calls[4].event == "eager fallback"
    assert mode.calls[4].compile_id is None


def test_print_variant_breaks_the_graph(jobs):
    _, result = _run(
        jobs,
        shapes="64x64",
        modes="dynamic=None",
        backend="eager",
        bucket="off",
        graph_break="print",
    )
    g = result.graph_break
    assert g.unique_graphs == 2 and g.graph_breaks == 1
    assert g.fullgraph_error_type == "Unsupported" and "print" in g.fullgraph_error


def test_inductor_backend_counts_match(jobs):
    _, result = _run(
        jobs,
        shapes="64x64,128x128,64x64",
        modes="dynamic=False,dynamic=True",
        backend="inductor",
        bucket="off",
        graph_break="off",
    )
    modes = _modes(result)
    assert modes["dynamic=False"].unique_graphs == 2 and modes["dynamic=True"].unique_graphs == 1
    first = modes["dynamic=False"].calls[0]
    assert first.fx_cache in ("hit", "miss") and first.compile_s > 0


def test_cli_run_prints_the_state_and_writes_the_summary(tmp_path, data_dir):
    import json
    import subprocess
    import sys
    from pathlib import Path

    out = tmp_path / "run.json"
    done = subprocess.run(
        [sys.executable, "-m", "runtime_lab", "--data-dir", str(data_dir), "run", "recompiles"]
        + ["--shapes", "growing-batch", "--modes", "dynamic=False", "--fullgraph", "true"]
        + ["--backend", "eager", "--bucket", "off", "--graph-break", "off", "--device", "cpu"]
        + ["--warmup", "1", "--repeat", "3", "--json", str(out)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "warning: dynamic=False: hit recompile_limit (8) at call 9" in done.stdout
    document = json.loads(out.read_text())
    assert document["spec"]["shape"] == [8, 1024]  # the sequence's first shape
    figures = document["summary"]
    assert set(figures) >= {"unique_graphs", "recompiles", "recompile_reasons", "compile_s"}
    assert set(figures) >= {"graph_breaks", "recompile_limit"}
    assert figures["unique_graphs"] == {"dynamic=False": 8}
    assert figures["recompile_limit"]["dynamic=False"]["hit"] is True
