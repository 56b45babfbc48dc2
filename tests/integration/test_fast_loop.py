"""The what-if loop (issue 27): a job's timing phase ends with a partial result, and the next
worker starts during its evidence phase, so Run again finds a warm worker (real subprocesses)."""

from __future__ import annotations

import time

import pytest

from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec
from runtime_lab.view import stages

pytestmark = pytest.mark.slow


def _phased(seconds: int = 3, seed: int = 0):
    """A distinct spec per seed: an identical one would join the running job instead. Each
    phase 3 s: a spare forked from the zygote says hello well within the evidence phase."""
    options = {"behaviour": "phased", "seconds": seconds}
    return build_spec("selftest", "8", device="cpu", seed=seed, options=options)


def _chain(jobs, count: int) -> list:
    """Submit a job, and the next one as soon as the last shows its partial result (the user
    clicks Run again at once): no lane is ever idle between them."""
    ids, seen = [jobs.submit(_phased())], set()
    while not all(jobs.get(i).finished for i in ids):
        job = jobs.get(ids[-1])
        if job.partial is not None and job.id not in seen:
            seen.add(job.id)
            assert job.phase == "evidence" and job.partial["behaviour"] == "phased"
            assert not job.finished and jobs.history.get(job.run_id or -1) is None
            if len(ids) < count:
                ids.append(jobs.submit(_phased(seed=len(ids))))
        time.sleep(0.05)
    assert len(seen) == count, "a job showed no partial result while it ran"
    return [jobs.get(i) for i in ids]


@pytest.mark.serial  # a bound in seconds: beside another test's workers a start takes longer
def test_run_again_at_once_finds_a_worker_started_during_the_evidence_phase(data_dir):
    jobs = JobManager(data_dir=data_dir, timeout_s=120, gpus=0, cpu_workers=1)
    try:
        deadline = time.monotonic() + 120
        while not jobs.env and time.monotonic() < deadline:  # the first worker is up
            time.sleep(0.2)
        chain = _chain(jobs, 3)
        assert [j.state for j in chain] == ["done"] * 3, [j.error for j in chain]
        assert all(j.result["slept_s"] == 6.0 for j in chain)
        assert len({j.worker["pid"] for j in chain}) == 3  # each retired after its profiler
        for before, after in zip(chain, chain[1:], strict=False):
            assert before.worker["disturbed_by"] == ["profiler"]
            worker = after.worker
            assert worker["started_as_spare"] and worker["previous_disturbed_by"] == ["profiler"]
            # it said hello before its own job began: no timing shared the cores with its start
            assert before.worker_finished < after.worker_started and worker["ready_mono"] < (
                after.worker_started
            )
            # it was (nearly) ready when the job it follows ended: no cold start waited for
            assert after.worker_started - before.worker_finished < 3.0
        # the second job started no spare early (an idle one was there), the third's came
        # from the second job's evidence phase: the loop stays warm however fast one clicks
        assert chain[1].worker["spare_started_during_evidence"]
    finally:
        jobs.close()


def test_a_partial_result_is_never_stored(data_dir):
    jobs = JobManager(data_dir=data_dir, timeout_s=120, gpus=0, cpu_workers=1)
    try:
        job_id = jobs.submit(_phased(2))
        while (job := jobs.get(job_id)).partial is None and not job.finished:
            time.sleep(0.05)
        assert job.partial is not None and not job.finished
        assert jobs.history.list() == []  # the partial result is shown, not recorded
        done = jobs.wait(job_id, 120)
        assert done.state == "done" and [r["id"] for r in jobs.history.list()] == [done.run_id]
        # the stored run keeps where its seconds went: 2 s asleep on each side of the phase
        stored = jobs.history.get(done.run_id)
        timeline = stored.worker["stages"]
        names = [s["stage"] for s in timeline]
        assert (
            names[:2] == ["process probe", "starting the job"] and names[-1] == "releasing memory"
        )
        assert names.count("sleeping") == 2 and "[evidence phase]" in names
        slept = [s["took_s"] for s in timeline if s["stage"] == "sleeping"]
        assert all(1.9 < t < 4.0 for t in slept), timeline
        assert stages.time_line(stored).startswith(f"{sum(s['took_s'] for s in timeline):.1f} s")
    finally:
        jobs.close()


def test_fusion_sends_its_headline_before_the_loops_and_other_clocks(data_dir):
    """Every mode's steady state on the lab's clock comes first; the loops and the two
    cross-check clocks follow in the same clean process, before the evidence phase."""
    options = {"modes": "eager,dynamo-eager", "compile_latency": False, "compile_trace": False}
    spec = build_spec("fusion", "64x64", device="cpu", warmup=1, repeat=5, options=options)
    jobs = JobManager(data_dir=data_dir, timeout_s=300)
    partials = {}
    try:
        job_id = jobs.submit(spec)
        while not (job := jobs.get(job_id)).finished:
            if job.partial is not None:
                partials.setdefault(job.phase, job.partial)
            time.sleep(0.01)
    finally:
        jobs.close()
    assert job.state == "done", job.error
    assert list(partials) == ["headline", "evidence"], list(partials)
    for mode in partials["headline"]["modes"]:
        assert mode["ran"] and len(mode["timing"]["host_ms"]) == 5, mode["mode"]
        assert mode["loop_us_per_call"] is None and not mode["clocks"], mode["mode"]
    for mode in partials["evidence"]["modes"]:
        assert mode["loop_us_per_call"] > 0, mode["mode"]
        clocks = [c["clock"] for c in mode["clocks"]]
        assert clocks[:2] == ["lab", "torch.utils.benchmark"], clocks
    names = [s["stage"] for s in job.worker["stages"]]
    assert names.index(stages.HEADLINE_MARK) < names.index("eager: back-to-back loop")
    assert names.index("dynamo-eager: clock torch.utils.benchmark") < names.index(
        "[evidence phase]"
    )
