"""The worker as a real subprocess: jobs run, crashes and hangs cost one job, queue and joins."""

import os
import signal
import time

import pytest

from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

pytestmark = pytest.mark.slow


@pytest.fixture
def jobs(data_dir):
    manager = JobManager(data_dir=data_dir, timeout_s=60)
    yield manager
    manager.close()


def _selftest(behaviour, seconds=1):
    return build_spec(
        "selftest", "8", device="cpu", options={"behaviour": behaviour, "seconds": seconds}
    )


def _wait_running(jobs, job_id, timeout_s=60):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        job = jobs.get(job_id)
        if job.state == "running" and job.stage not in ("", "starting"):
            return job
        time.sleep(0.05)
    raise AssertionError(f"job never started: {jobs.get(job_id)}")


def test_streams_job_runs_in_the_worker_and_is_recorded(jobs):
    job = jobs.wait(
        jobs.submit(build_spec("streams", "64x32", device="cpu", repeat=5, warmup=1)), 120
    )
    assert job.state == "done", job.error
    assert job.result["max_abs_diff"] == 0.0 and job.result["tolerance_passed"]
    timing = job.result["timings"][0]
    assert len(timing["host_ms"]) == 5 and all(v > 0 for v in timing["host_ms"])
    assert job.env["pid"] != os.getpid() and job.env["torch"]
    stored = jobs.history.get(job.run_id)
    assert stored["status"] == "done" and stored["spec"]["shape"] == [64, 32]


def test_killed_worker_fails_the_job_and_the_next_succeeds(jobs):
    job_id = jobs.submit(_selftest("sleep", 30))
    pid = _wait_running(jobs, job_id).env["pid"]
    os.kill(pid, signal.SIGKILL)
    job = jobs.wait(job_id, 60)
    assert job.state == "failed" and "SIGKILL" in job.error
    assert jobs.history.get(job.run_id)["status"] == "failed"
    after = jobs.wait(jobs.submit(_selftest("ok")), 120)
    assert after.state == "done" and after.result["pid"] != pid
    assert jobs.status()["restarts"] == 1


def test_crash_inside_a_job_and_an_error_deep_in_torch(jobs):
    crashed = jobs.wait(jobs.submit(_selftest("crash")), 120)
    assert crashed.state == "failed" and "SIGKILL" in crashed.error
    raised = jobs.wait(jobs.submit(_selftest("raise")), 120)
    assert raised.state == "failed" and "cannot be multiplied" in raised.error
    assert jobs.wait(jobs.submit(_selftest("ok")), 120).state == "done"


def test_a_job_past_its_timeout_is_killed(data_dir):
    jobs = JobManager(data_dir=data_dir, timeout_s=3)
    try:
        hung = jobs.wait(jobs.submit(_selftest("hang")), 120)
        assert hung.state == "failed" and "timed out after 3 s" in hung.error
        assert jobs.wait(jobs.submit(_selftest("ok")), 120).state == "done"
    finally:
        jobs.close()


def test_fifo_positions_joins_and_cancel(jobs):
    first = jobs.submit(_selftest("sleep", 3))
    _wait_running(jobs, first)
    second = jobs.submit(_selftest("sleep", 2))
    third = jobs.submit(_selftest("ok"))
    assert jobs.submit(_selftest("sleep", 2)) == second  # identical spec joins the queued job
    assert jobs.get(second).joined == 2
    assert jobs.get(third).position == 2 and jobs.get(second).position == 1
    assert jobs.cancel(second) and jobs.get(second).state == "cancelled"
    assert jobs.get(third).position == 1
    assert jobs.cancel(first)
    cancelled = jobs.wait(first, 60)
    assert cancelled.state == "cancelled" and "restarted" in cancelled.error
    done = jobs.wait(third, 120)
    assert done.state == "done" and done.started_at >= cancelled.finished_at


def test_refused_jobs_are_not_runs(jobs):
    job = jobs.wait(jobs.submit(build_spec("streams", "8", device="cuda:7")), 120)
    assert job.state == "refused" and "cuda:7" in job.error and job.run_id is None
    assert jobs.history.list() == []


def test_memory_estimate_refuses_with_both_numbers(jobs):
    job = jobs.wait(jobs.submit(build_spec("streams", "100000x100000", device="cpu")), 120)
    assert job.state == "refused"
    assert "needs about" in job.error and "available host RAM" in job.error


def test_worker_exits_when_the_server_goes_away(data_dir):
    import subprocess
    import sys

    code = (
        "import sys, time; from runtime_lab.runner.jobs import JobManager; "
        "m = JobManager(); t = time.time()\n"
        "while not m.env and time.time() - t < 120: time.sleep(0.1)\n"
        "print(m.status()['worker_pid'], flush=True); time.sleep(60)"
    )
    server = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    worker_pid = int(server.stdout.readline())
    server.kill()  # no cleanup handlers run: the worker must notice on its own
    server.wait()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            os.kill(worker_pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    os.kill(worker_pid, signal.SIGKILL)
    pytest.fail("worker outlived its server")


def test_run_artefacts_are_pruned_to_the_newest(tmp_path):
    import os

    from runtime_lab import config

    traces = tmp_path / "traces"
    traces.mkdir()
    for i in range(7):
        path = traces / f"{i}-streams.json"
        path.write_text("{}")
        os.utime(path, (1000 + i, 1000 + i))  # higher i: newer
    (tmp_path / "history.sqlite3").write_text("not an artefact")
    assert config.prune_artefacts(tmp_path, keep=3) == 4
    assert sorted(p.name for p in traces.iterdir()) == [
        "4-streams.json",
        "5-streams.json",
        "6-streams.json",
    ]
    assert (tmp_path / "history.sqlite3").exists()
    assert config.prune_artefacts(tmp_path / "missing", keep=3) == 0


def test_kill_survives_a_pipe_whose_descriptor_is_already_gone():
    """A manager closing while its spare starts saw EBADF from conn.close(): kill() must end
    the worker and return, never raise out of JobManager.close()."""
    import os
    from multiprocessing import Pipe

    from runtime_lab.runner.process import WorkerProcess

    worker = WorkerProcess()
    worker.conn, other = Pipe()
    os.close(worker.conn.fileno())  # someone else closed the descriptor under it
    worker.kill()
    assert worker.conn is None
    other.close()


def test_a_worker_stopped_from_another_thread_says_so_when_asked_to_talk():
    """close() may kill a worker while the dispatcher waits for its hello: receive() and send()
    then raise WorkerDied (which the lane handles), not AttributeError on the gone pipe."""
    from runtime_lab.runner.process import WorkerDied, WorkerProcess

    worker = WorkerProcess()
    for call in (lambda: worker.receive(0.1), lambda: worker.send({"op": "shutdown"})):
        with pytest.raises(WorkerDied, match="stopped"):
            call()
