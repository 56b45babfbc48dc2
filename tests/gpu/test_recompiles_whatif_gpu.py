"""Recompiles' reduce-overhead what-if through the real worker on CUDA: cudagraph trees warm up,
record and replay, and the graphs' pool is measured."""

import pytest

from runtime_lab.recompiles import cudagraph_calls as cg
from runtime_lab.registry import build_report, result_from_record, summary
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    manager = JobManager(data_dir=tmp_path_factory.mktemp("whatif-gpu"), timeout_s=600)
    yield manager
    manager.close()


def _run(jobs, device="cpu", **options):
    spec = build_spec("recompiles", "8", device=device, warmup=1, repeat=3, options=options)
    job = jobs.wait(jobs.submit(spec), 600)
    assert job.state == "done", job.error
    run = job.as_run()
    return run, result_from_record("recompiles", run["result"])


def test_reduce_overhead_records_replays_and_fills_its_pool(jobs):
    shapes = "64x64,128x128,64x64,64x64,128x128,128x128"
    run, result = _run(
        jobs,
        device="cuda",
        shapes=shapes,
        modes="dynamic=False",
        backend="inductor",
        bucket="off",
        graph_break="off",
        cudagraphs=True,
    )
    graphs = {m.mode: m for m in result.modes}[cg.MODE]
    assert graphs.error is None, graphs.error
    assert [c.event for c in graphs.calls] == ["compile", "recompile"] + ["cache hit"] * 4
    states = [c.cudagraph for c in graphs.calls]
    # what cudagraph trees do (torch/_inductor/cudagraph_trees.py, CUDAGraphTreeManager._run):
    # a function's first run is a warm-up outside a graph, its next run records a graph, later
    # runs replay it; so each new shape never replays on its first call, records on its second
    # and replays on its third (the outputs are dropped at once, so every path can end)
    assert states == ["warmup", "warmup", "recorded", "replayed", "recorded", "replayed"], [
        (c.index, c.cudagraph, c.cudagraph_reason) for c in graphs.calls
    ]
    ids = [c.cudagraph_id for c in graphs.calls]
    assert ids[2] == ids[3] and ids[4] == ids[5] and ids[2] != ids[4]  # one graph per shape
    assert graphs.pool_bytes and graphs.pool_bytes > 0, graphs.cudagraph_note
    assert all(c.steady_ms for c in graphs.calls)
    report = build_report(run)
    assert any(m.label == f"{cg.MODE}: CUDA graphs" for m in report.metrics)
    assert summary(run)["cudagraphs"]["recorded"] == 2
