"""The Ray backend behind the JobManager, on a local CPU cluster whose custom resources stand in
for two GPU types: routing, an actor killed mid-job, cancel, and history rows of the local shape."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
import raycluster

ray = pytest.importorskip("ray")

from runtime_lab.runner.jobs import JobManager  # noqa: E402
from runtime_lab.spec import build_spec  # noqa: E402

pytestmark = [pytest.mark.ray, pytest.mark.slow]
WAIT_S = 180  # two cores shared with the actors' torch imports


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    raycluster.start(ray)
    os.environ["RUNTIME_LAB_TORCH_THREADS"] = "1"  # inherited by the local CPU worker
    manager = JobManager(
        data_dir=tmp_path_factory.mktemp("ray-jobs"), timeout_s=120, spare=False, ray_address="auto"
    )
    yield manager
    manager.close()
    ray.shutdown()
    os.environ.pop("RUNTIME_LAB_TORCH_THREADS", None)


def _job(behaviour="ok", seconds=1, device="cpu"):
    options = {"behaviour": behaviour, "seconds": seconds}
    return build_spec("selftest", "8", device=device, options=options)


def _lane(jobs, device_type):
    return next(lane.name for lane in jobs.lanes if lane.plan.device_type == device_type)


def test_lanes_are_the_clusters_gpu_types_plus_the_local_cpu_worker(jobs):
    lanes = {lane.name: lane.plan for lane in jobs.lanes}
    assert sorted(plan.device_type for plan in lanes.values()) == ["cpu", "fake-a", "fake-b"]
    remote = [plan for plan in lanes.values() if plan.node]
    assert len(remote) == 2 and all(p.kind == "gpu" and p.name.startswith("ray:") for p in remote)


def test_jobs_go_where_their_resource_is_and_cpu_jobs_stay_local(jobs):
    a, b = _lane(jobs, "fake-a"), _lane(jobs, "fake-b")
    ids = [jobs.submit(_job(), target=a), jobs.submit(_job(), target=b), jobs.submit(_job())]
    ran = [jobs.wait(i, WAIT_S) for i in ids]
    assert [j.state for j in ran] == ["done"] * 3, [j.error for j in ran]
    assert [j.lane for j in ran] == [a, b, "cpu"]
    assert ran[0].worker["actor"] != ran[1].worker["actor"]  # one actor per resource
    assert ran[0].worker["backend"] == "ray" and "backend" not in ran[2].worker
    assert ran[0].worker["pid"] not in (os.getpid(), ran[2].worker["pid"])
    assert ran[0].env["node"] == ran[0].worker["node"] and ran[0].env["host"]


def test_auto_goes_to_the_least_busy_cluster_gpu(jobs):
    first = jobs.submit(_job("sleep", 3, device="auto"))
    second = jobs.submit(_job("sleep", 2, device="auto"))
    one, two = jobs.wait(first, WAIT_S), jobs.wait(second, WAIT_S)
    assert one.state == two.state == "done", (one.error, two.error)
    assert {one.lane, two.lane} == {_lane(jobs, "fake-a"), _lane(jobs, "fake-b")}
    overlap = min(one.worker_finished, two.worker_finished) - max(
        one.worker_started, two.worker_started
    )
    assert overlap > 1.0  # side by side on two actors


def test_an_actor_killed_mid_job_fails_that_job_with_its_reason_and_the_next_runs(jobs):
    lane = _lane(jobs, "fake-a")
    job_id = jobs.submit(_job("sleep", 60), target=lane)
    deadline = time.monotonic() + WAIT_S
    while (job := jobs.get(job_id)).state != "running" or not job.worker:
        assert time.monotonic() < deadline, job
        time.sleep(0.2)
    time.sleep(1.0)  # inside the job's sleep
    os.kill(job.worker["pid"], signal.SIGKILL)  # as the OOM killer would
    failed = jobs.wait(job_id, WAIT_S)
    assert failed.state == "failed"
    assert "Ray actor" in failed.error and "restarted" in failed.error, failed.error
    nxt = jobs.wait(jobs.submit(_job(), target=lane), WAIT_S)
    assert nxt.state == "done" and nxt.worker["pid"] != job.worker["pid"], nxt.error
    assert jobs.history.get(failed.run_id)["status"] == "failed"


def test_cancel_of_a_running_cluster_job_restarts_its_actor(jobs):
    lane = _lane(jobs, "fake-b")
    job_id = jobs.submit(_job("sleep", 60), target=lane)
    deadline = time.monotonic() + WAIT_S
    while jobs.get(job_id).state != "running":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert jobs.cancel(job_id)
    cancelled = jobs.wait(job_id, WAIT_S)
    assert cancelled.state == "cancelled" and "restarted" in cancelled.error
    assert jobs.wait(jobs.submit(_job(seconds=2), target=lane), WAIT_S).state == "done"


def test_history_rows_have_the_local_backends_shape(jobs):
    local = jobs.wait(jobs.submit(_job(seconds=3)), WAIT_S)
    remote = jobs.wait(jobs.submit(_job(seconds=3), target=_lane(jobs, "fake-b")), WAIT_S)
    a, b = jobs.history.get(local.run_id), jobs.history.get(remote.run_id)
    assert set(a) == set(b)
    assert set(a["result"]) == set(b["result"]) and a["device"] == b["device"] == "cpu"
    assert set(a["env"]) <= set(b["env"])  # plus node, host, actor
    assert {"node", "host", "ray_actor"} <= set(b["env"]) and b["worker"]["lane"].startswith("ray:")


def test_the_cli_says_in_one_line_when_the_cluster_is_out_of_reach(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "runtime_lab", "--data-dir", str(tmp_path)]
        + ["--ray-address", "127.0.0.1:9", "workers"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    lines = [x for x in done.stderr.splitlines() if x.startswith("runtime_lab:")]
    assert lines and "could not reach the Ray cluster at 127.0.0.1:9" in lines[0], done.stderr
