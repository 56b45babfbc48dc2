"""Crashes, hangs, OOM and concurrency (issue 7.2-7.4) against the real worker subprocess.

tests/test_worker.py covers each failure on its own; here they come in one queue, as on a
shared server: every failure costs its own job only, the queue runs on in FIFO order, the
runs completed before are unchanged in history, and the worker's own job intervals (monotonic
stamps taken inside the worker) never overlap. Eight browser sessions at once:
tests/test_reliability_server.py.
"""

from __future__ import annotations

import os
import re
import signal
import time

import pytest

from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

pytestmark = pytest.mark.slow
TIMEOUT_S = 5


def _selftest(behaviour, seconds=1, tag=0):
    # tag: the seed, so otherwise identical jobs are not joined into one
    options = {"behaviour": behaviour, "seconds": seconds}
    return build_spec("selftest", "8", device="cpu", seed=tag, options=options)


def assert_no_overlap(jobs):
    """Worker-side intervals, sorted by start: each job ends before the next one starts."""
    spans = sorted((j.worker_started, j.worker_finished, j.id) for j in jobs)
    assert all(start < end for start, end, _ in spans), spans
    for (_, end, first), (start, _, second) in zip(spans, spans[1:], strict=False):
        assert end <= start, f"jobs {first} and {second} overlap in the worker"


def _wait_stage(jobs, job_id, timeout_s=120):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        job = jobs.get(job_id)
        if job.state == "running" and job.stage.startswith("sleeping"):
            return job
        time.sleep(0.02)
    raise AssertionError(f"job never started: {jobs.get(job_id)}")


def test_every_failure_costs_one_job_and_the_queue_runs_on(data_dir):
    jobs = JobManager(data_dir=data_dir, timeout_s=TIMEOUT_S)
    try:
        first = jobs.wait(jobs.submit(_selftest("ok")), 120)
        assert first.state == "done" and first.run_id
        stored_first = jobs.history.get(first.run_id)
        plan = [
            ("killed", _selftest("sleep", 60)),  # SIGKILLed from outside mid-job
            ("crash", _selftest("crash")),  # the job kills its own process
            ("raise", _selftest("raise")),  # a RuntimeError from inside torch's matmul
            ("hang", _selftest("hang")),  # never returns: the timeout kills it
            ("oom", _selftest("oom")),  # passes the estimate (0 B), then cannot allocate
            ("after", _selftest("ok", tag=1)),
        ]
        ids = {name: jobs.submit(spec) for name, spec in plan}  # all queued at once
        positions = [jobs.get(ids[n]).position for n, _ in plan[1:]]
        assert positions == list(range(positions[0], positions[0] + 5))  # queued in order
        running = _wait_stage(jobs, ids["killed"])
        os.kill(running.env["pid"], signal.SIGKILL)
        done = {name: jobs.wait(job_id, 180) for name, job_id in ids.items()}

        assert done["killed"].state == "failed" and "SIGKILL" in done["killed"].error
        assert "while running this job; the worker was restarted" in done["killed"].error
        assert done["crash"].state == "failed" and "SIGKILL" in done["crash"].error
        assert done["raise"].state == "failed"
        assert (
            "RuntimeError" in done["raise"].error and "cannot be multiplied" in done["raise"].error
        )
        assert done["hang"].state == "failed"
        assert f"timed out after {TIMEOUT_S} s" in done["hang"].error
        oom = done["oom"].error
        assert done["oom"].state == "failed" and oom.startswith("out of memory: tried to allocate")
        figures = re.search(
            r"allocate ([\d,.]+) GiB on cpu; ([\d,.]+) GiB of host RAM available", oom
        )
        needed, free = (float(g.replace(",", "")) for g in figures.groups())
        assert needed > free > 0.1  # needed vs free, both real numbers
        assert done["after"].state == "done" and done["after"].result["pid"] != first.result["pid"]
        # restarts: the kill, the crash and the timeout; raise and OOM keep the worker
        assert jobs.status()["restarts"] == 3
        pids = {name: job.env["pid"] for name, job in done.items()}
        assert pids["raise"] == pids["hang"] and pids["oom"] == pids["after"]  # the same worker
        assert len({pids["killed"], pids["crash"], pids["hang"], pids["after"]}) == 4
        # FIFO: each started after the previous one finished
        order = [first] + [done[n] for n, _ in plan]
        for before, after in zip(order, order[1:], strict=False):
            assert after.started_at >= before.finished_at
        # the jobs the worker finished itself carry its intervals; none overlap
        assert_no_overlap([first, done["raise"], done["oom"], done["after"]])
        # every run recorded with its reason; the run before the failures unchanged
        rows = {r["id"]: r for r in jobs.history.list(limit=100)}
        assert len(rows) == 7
        for name, _ in plan:
            stored = jobs.history.get(done[name].run_id)
            assert stored["status"] == done[name].state and stored["error"] == done[name].error
        assert jobs.history.get(first.run_id) == stored_first
    finally:
        jobs.close()


@pytest.mark.serial  # an RSS bound: beside another test's worker it grew 90 MiB once
def test_a_job_holds_no_memory_after_it_finishes(data_dir):
    """The worker reports what it still holds after each job; on CPU its RSS stays flat."""
    jobs = JobManager(data_dir=data_dir, timeout_s=120)
    try:
        spec = build_spec("streams", "1536x1536", device="cpu", repeat=2, warmup=1)
        rss = []
        for _ in range(6):
            job = jobs.wait(jobs.submit(spec), 120)
            assert job.state == "done", job.error
            rss.append(job.memory_after["rss_bytes"])
        assert min(rss) > 50 * 2**20  # a real reading: torch alone is more than that
        # each job makes four 9 MiB fp32 tensors: kept, 5 jobs would add 180 MiB; allocator
        # noise between jobs was up to 24 MiB here
        assert rss[-1] - rss[1] < 48 * 2**20, [r // 2**20 for r in rss]
    finally:
        jobs.close()
