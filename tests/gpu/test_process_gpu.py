"""The process probe on CUDA: launch and graph-replay figures, cheap, and nothing left held."""

from __future__ import annotations

import pytest
import torch

from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

pytestmark = pytest.mark.gpu


def test_the_probe_measures_launch_and_graph_replay_and_holds_nothing():
    from runtime_lab.lab import probe

    probe.take()  # the first one initialises CUDA
    torch.cuda.synchronize()
    reserved = torch.cuda.memory_reserved()
    taken = probe.take()
    assert 0 < taken["dispatch_us"] < 1000
    assert 0 < taken["launch_us"] < 1000 and 0 < taken["graph_replay_us"] < 1000
    # 30 ms in a fresh worker on the H200, 354 ms inside this test process (graph capture after
    # hundreds of tests): bounded, not free
    assert taken["took_ms"] < 1000
    assert torch.cuda.memory_reserved() <= reserved  # holds nothing: the allocator reads this


def test_a_cuda_run_stores_both_probes_and_its_worker(data_dir):
    jobs = JobManager(data_dir=data_dir, timeout_s=120)
    try:
        spec = build_spec("selftest", "8", device="cuda:0", options={"behaviour": "ok"})
        job = jobs.wait(jobs.submit(spec), 300)
        assert job.state == "done", job.error
        for taken in (job.process_probe["job"], job.process_probe["baseline"]):
            assert 0 < taken["launch_us"] < 1000 and 0 < taken["graph_replay_us"] < 1000
        assert set(job.process_probe["ratios"]) == {"dispatch_us", "launch_us", "graph_replay_us"}
        # memory history on CUDA really records, then the worker is replaced by the warm spare
        spec = build_spec("selftest", "8", device="cuda:0", options={"behaviour": "memory-history"})
        disturbing = jobs.wait(jobs.submit(spec), 300)
        assert disturbing.state == "done", disturbing.error
        assert disturbing.worker["disturbed_by"] == ["memory-history"]
        after = jobs.wait(jobs.submit(build_spec("selftest", "8", device="cuda:0", seed=1)), 300)
        assert after.worker["fresh_after_disturbed"] and after.worker["pid"] != job.worker["pid"]
    finally:
        jobs.close()
