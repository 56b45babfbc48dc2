"""Figures that don't depend on what the worker ran before, against the real worker subprocess:
a job that turns a disturbing tool on retires its worker and the next job runs in the warm
spare; the process probe and the worker record travel with every run into history."""

from __future__ import annotations

import json
import os
import signal
import time

import psutil
import pytest

from runtime_lab import registry, report
from runtime_lab.env import THREADS_ENV
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

pytestmark = pytest.mark.slow


def _selftest(behaviour, tag=0, seconds=1):
    options = {"behaviour": behaviour, "seconds": seconds}
    return build_spec("selftest", "8", device="cpu", seed=tag, options=options)


@pytest.fixture
def jobs(data_dir):
    manager = JobManager(data_dir=data_dir, timeout_s=60)
    yield manager
    manager.close()


def _run(jobs, spec):
    job = jobs.wait(jobs.submit(spec), 120)
    assert job.state in ("done", "failed"), job
    return job


def _spare_ready(jobs, timeout_s=120):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if jobs.status()["spare_pid"]:
            return jobs.status()["spare_pid"]
        time.sleep(0.05)
    raise AssertionError(f"no spare worker came up: {jobs.status()}")


def _gone(pid):
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@pytest.mark.own_zygote  # the first worker's cold start is the bar: not a fork of a warm zygote
@pytest.mark.parametrize(
    ("behaviour", "reason"), [("profile", "profiler"), ("memory-history", "memory-history")]
)
def test_a_disturbing_job_retires_its_worker_and_the_next_runs_in_the_warm_spare(
    jobs, behaviour, reason
):
    cold_start = time.monotonic()
    first = _run(jobs, _selftest("ok"))
    cold_start = time.monotonic() - cold_start  # includes starting the first worker
    pid = first.worker["pid"]
    spare = _spare_ready(jobs)
    assert spare != pid
    disturbing = _run(jobs, _selftest(behaviour))
    assert disturbing.state == "done", disturbing.error
    assert disturbing.worker["pid"] == pid and disturbing.worker["jobs_before"] == 1
    assert disturbing.worker["disturbed_by"] == [reason]
    submitted = time.monotonic()
    after = _run(jobs, _selftest("ok", tag=1))
    waited = time.monotonic() - submitted
    assert after.state == "done" and after.result["pid"] == spare != pid
    worker = after.worker
    assert worker["fresh_after_disturbed"] and worker["previous_disturbed_by"] == [reason]
    assert worker["started_as_spare"] and worker["jobs_before"] == 0
    assert worker["ready_mono"] < submitted  # its hello (CUDA initialised) came before the job
    assert waited < cold_start, (waited, cold_start)
    assert _gone(pid)  # the disturbed process is not left behind
    status = jobs.status()
    assert status["replaced"] == 1 and status["restarts"] == 0
    stored = jobs.history.get(after.run_id)
    assert stored["worker"] == worker
    notes = registry.build_report(stored).notes
    assert any("fresh worker process" in n and "went with the old process" in n for n in notes), (
        notes
    )
    assert any(reason in n for n in registry.build_report(disturbing.as_run()).notes)


def test_a_job_that_does_not_disturb_keeps_its_worker(jobs):
    first, second = _run(jobs, _selftest("ok")), _run(jobs, _selftest("ok", tag=1))
    assert first.result["pid"] == second.result["pid"]
    assert [first.worker["jobs_before"], second.worker["jobs_before"]] == [0, 1]
    for job in (first, second):
        assert job.worker["disturbed_by"] == [] and not job.worker["fresh_after_disturbed"]
    assert jobs.status()["replaced"] == 0
    notes = registry.build_report(second.as_run()).notes
    assert not any("fresh worker" in n for n in notes)


def test_a_crash_with_a_spare_costs_one_job_and_the_spare_takes_over(jobs):
    first = _run(jobs, _selftest("ok"))
    spare = _spare_ready(jobs)
    crashed = _run(jobs, _selftest("crash"))
    assert crashed.state == "failed" and "SIGKILL" in crashed.error
    assert crashed.worker["pid"] == first.worker["pid"]
    after = _run(jobs, _selftest("ok", tag=1))
    assert after.state == "done" and after.result["pid"] == spare
    assert not after.worker["fresh_after_disturbed"]  # a crash is not a disturbing tool
    status = jobs.status()
    assert status["restarts"] == 1 and status["replaced"] == 0
    # killed from outside while the spare's successor may be starting: still one job lost
    job_id = jobs.submit(_selftest("sleep", tag=2, seconds=30))
    deadline = time.monotonic() + 60
    while jobs.get(job_id).stage in ("", "starting") and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(jobs.get(job_id).worker["pid"], signal.SIGKILL)
    killed = jobs.wait(job_id, 60)
    assert killed.state == "failed" and "SIGKILL" in killed.error
    assert _run(jobs, _selftest("ok", tag=3)).state == "done"
    assert jobs.status()["restarts"] == 2


def test_every_run_carries_its_process_probe_into_json_and_history(jobs):
    job = _run(jobs, _selftest("ok"))
    probe = job.process_probe
    assert set(probe) >= {"job", "baseline", "ratios", "flagged", "reason", "threshold_pct"}
    for taken in (probe["job"], probe["baseline"]):
        assert 0 < taken["dispatch_us"] < 1000 and taken["took_ms"] < 100
        assert taken["launch_us"] is None and taken["graph_replay_us"] is None  # no GPU here
    assert probe["ratios"]["dispatch_us"] == pytest.approx(
        probe["job"]["dispatch_us"] / probe["baseline"]["dispatch_us"], rel=1e-2
    )
    assert probe["baseline"] == jobs._worker.baseline_probe  # the one sent in hello
    document = json.loads(report.run_json(job.as_run()))
    assert document["process_probe"] == probe and document["worker"] == job.worker
    stored = jobs.history.get(job.run_id)
    assert stored["process_probe"] == probe and stored["worker"] == job.worker


def test_torch_threads_leave_a_core_free_or_follow_the_environment(data_dir, monkeypatch):
    physical = psutil.cpu_count(logical=False) or psutil.cpu_count()
    physical = min(physical, len(os.sched_getaffinity(0)))
    for value, expected, source in (
        (None, max(1, physical - 1), "physical cores - 1"),
        ("1", 1, THREADS_ENV),  # within this machine's CPUs, whatever it has
    ):
        if value is None:
            monkeypatch.delenv(THREADS_ENV, raising=False)
        else:
            monkeypatch.setenv(THREADS_ENV, value)
        manager = JobManager(data_dir=data_dir, timeout_s=60, spare=False)
        try:
            job = _run(manager, _selftest("ok"))
        finally:
            manager.close()
        assert job.env["torch_threads"] == expected and job.env["torch_threads_source"] == source
