"""Run again at once: a spare that started while the lane was idle gives way to the job (its
start is killed, the job runs on the worker that is up); a spare the job needs is waited for."""

from __future__ import annotations

import time

import psutil
import pytest

from runtime_lab.envvars import WORKLOADS_ENV
from runtime_lab.runner.job import wall
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

pytestmark = pytest.mark.slow

START_S = 4.0  # each worker's start: a user's workload file that sleeps when imported


def _selftest(behaviour, tag=0, seconds=0):
    options = {"behaviour": behaviour, "seconds": seconds}
    return build_spec("selftest", "8", device="cpu", seed=tag, options=options)


@pytest.fixture
def jobs(data_dir, tmp_path, monkeypatch):
    slow = tmp_path / "slow_start.py"
    slow.write_text(f"import time\n\ntime.sleep({START_S})\n")
    monkeypatch.setenv(WORKLOADS_ENV, str(slow))
    manager = JobManager(data_dir=data_dir, timeout_s=60)
    yield manager
    manager.close()


def _until(check, timeout_s=60.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if found := check():
            return found
        time.sleep(0.02)
    raise AssertionError("timed out")


def _starting_pid(jobs):
    pool = jobs.lanes[0].pool
    starting = pool._starting if pool.starting_spare else None
    return starting.pid if starting is not None and starting.pid else None


def _submit(jobs, spec):
    """The job and how long after its submission the worker began it."""
    submitted = time.time()
    job = jobs.wait(jobs.submit(spec), 60)
    assert job.state == "done", job.error
    return job, wall(job.worker_started) - submitted


def test_a_job_kills_an_idle_spares_start_and_runs_at_once(jobs):
    first, _ = _submit(jobs, _selftest("ok"))
    spare_pid = _until(lambda: _starting_pid(jobs))  # the idle lane started a spare
    second, waited = _submit(jobs, _selftest("ok", tag=1))
    assert waited < START_S / 2, waited  # it did not wait for the spare's start
    assert second.result["pid"] == first.result["pid"] and second.worker["jobs_before"] == 1
    assert not psutil.pid_exists(spare_pid) or psutil.Process(spare_pid).status() == "zombie"
    status = jobs.status()
    assert status["restarts"] == 0 and status["spare_pid"] != spare_pid


def test_a_spare_the_job_needs_is_waited_for_not_killed(jobs):
    first, _ = _submit(jobs, _selftest("ok"))
    _until(lambda: _starting_pid(jobs))
    # the idle spare's start gives way; this job's evidence phase (a profiler) starts the next
    phased, _ = _submit(jobs, _selftest("phased"))
    assert phased.result["pid"] == first.result["pid"]
    assert phased.worker["spare_started_during_evidence"] is True
    # its worker is retired: the next job needs that spare, still starting, and waits for it
    after, waited = _submit(jobs, _selftest("ok", tag=1))
    assert after.worker["started_as_spare"] and after.worker["fresh_after_disturbed"]
    assert after.result["pid"] != first.result["pid"]
    assert waited > 0.5, waited  # the spare's start (START_S) was under way, not killed
    assert jobs.status()["restarts"] == 0
