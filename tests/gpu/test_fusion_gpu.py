"""Fusion on CUDA: three clocks including do_bench, and no mode above the best ceiling at 8192²."""

import pytest

from runtime_lab.fusion.report.clocks import clock_rows
from runtime_lab.fusion.report.figures import figures
from runtime_lab.registry import result_from_record, summary
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

pytestmark = [pytest.mark.gpu, pytest.mark.slow]


@pytest.fixture(scope="module")
def big_run(tmp_path_factory):
    jobs = JobManager(data_dir=tmp_path_factory.mktemp("fusion-gpu"), timeout_s=600)
    try:
        options = {"modes": "eager,inductor,cuda-graph", "compile_latency": False}
        spec = build_spec("fusion", "8192x8192", device="cuda", repeat=50, options=options)
        job = jobs.wait(jobs.submit(spec), 600)
    finally:
        jobs.close()
    assert job.state == "done", job.error
    return job.as_run()


def test_do_bench_is_among_the_clocks_on_cuda(big_run):
    result = result_from_record("fusion", big_run["result"])
    assert result.timed_before_profiling
    for mode in (m for m in result.modes if m.ran):
        clocks = {c.clock: c for c in mode.clocks}
        assert list(clocks) == ["lab", "torch.utils.benchmark", "triton.do_bench"], mode.mode
        bench = clocks["triton.do_bench"]
        assert bench.median_ms > 0 and "L2 flushed" in bench.detail
        assert bench.samples_ms, "triton 3.6 has return_mode='all': every sample is kept"
    # at 8192² every call streams 256 MiB per tensor: the clocks should agree within 5 %
    flagged = [(r["mode"], r["clock"], r["ratio_to_lab"]) for r in clock_rows(result)]
    assert not [f for f in flagged if f[1] != "lab" and abs(f[2] - 1) > 0.05], flagged
    assert set(summary(big_run)["clocks"]["inductor"]) == {
        "lab",
        "torch.utils.benchmark",
        "triton.do_bench",
    }


def test_no_mode_exceeds_the_best_ceiling_by_more_than_one_percent(big_run):
    result = result_from_record("fusion", big_run["result"])
    assert result.add_gbps and result.copy_ceiling_gbps
    assert result.ceiling_gbps == max(result.add_gbps, result.copy_ceiling_gbps)
    pct = {f.mode: f.ceiling_pct for f in figures(result).modes if f.ceiling_pct}
    assert pct and max(pct.values()) <= 101.0, pct
    if result.theoretical_gbps is not None:  # only where both clock and bus width were read
        assert result.theoretical_gbps > result.ceiling_gbps, result.theoretical_detail
    key = summary(big_run)
    assert key["naive_speedup"] is not None and key["measured_speedup"] > 1
