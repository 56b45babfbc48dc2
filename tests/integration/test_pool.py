"""The worker pool on the CPU: two CPU workers stand in for two devices (real subprocesses)."""

import pytest

from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

pytestmark = pytest.mark.slow


def _job(behaviour, seconds=1):
    options = {"behaviour": behaviour, "seconds": seconds}
    return build_spec("selftest", "8", device="cpu", options=options)


@pytest.fixture(scope="module")
def pool(tmp_path_factory):
    manager = JobManager(
        data_dir=tmp_path_factory.mktemp("pool"), timeout_s=120, gpus=0, cpu_workers=2, spare=False
    )
    yield manager
    manager.close()


def _overlap(a, b):
    return min(a.worker_finished, b.worker_finished) - max(a.worker_started, b.worker_started)


def test_two_lanes_run_two_jobs_at_once(pool):
    ids = [pool.submit(_job("sleep", 3)), pool.submit(_job("sleep", 4))]
    a, b = (pool.wait(i, 120) for i in ids)
    assert a.state == b.state == "done", (a.error, b.error)
    assert {a.lane, b.lane} == {"cpu", "cpu-2"}
    assert a.worker["pid"] != b.worker["pid"]
    assert _overlap(a, b) > 2.0  # both slept side by side, not one after the other
    assert [x["job_id"] for x in a.worker["alongside"]] == [b.id]
    lanes = {lane["lane"]: lane for lane in pool.status()["lanes"]}
    assert set(lanes) == {"cpu", "cpu-2"} and all(x["restarts"] == 0 for x in lanes.values())


def test_each_lane_is_fifo_and_never_overlaps_itself(pool):
    ids = [pool.submit(_job("sleep", s), target=lane) for s in (1, 2) for lane in ("cpu", "cpu-2")]
    jobs = [pool.wait(i, 120) for i in ids]
    assert all(j.state == "done" for j in jobs), [j.error for j in jobs]
    for lane in ("cpu", "cpu-2"):
        mine = [j for j in jobs if j.lane == lane]
        assert [dict(j.spec.options)["seconds"] for j in mine] == [1, 2]
        assert mine[0].worker_finished <= mine[1].worker_started  # in order, one at a time


def test_a_crash_in_one_lane_leaves_the_other_running(pool):
    before = {lane["lane"]: lane["restarts"] for lane in pool.status()["lanes"]}
    long_id = pool.submit(_job("sleep", 6), target="cpu")
    crash_id = pool.submit(_job("crash"), target="cpu-2")
    crashed = pool.wait(crash_id, 120)
    assert crashed.state == "failed" and "worker" in crashed.error, crashed.error
    running = pool.get(long_id)
    assert running.state == "running"  # the other lane's job was not touched
    survivor = pool.wait(long_id, 120)
    assert survivor.state == "done", survivor.error
    after = {lane["lane"]: lane["restarts"] for lane in pool.status()["lanes"]}
    assert after["cpu"] == before["cpu"] and after["cpu-2"] == before["cpu-2"] + 1
    again = pool.wait(pool.submit(_job("ok"), target="cpu-2"), 120)  # the lane restarted
    assert again.state == "done" and again.worker["pid"] != crashed.worker["pid"]


def test_an_unknown_lane_is_refused_with_the_names(pool):
    job = pool.wait(pool.submit(_job("ok"), target="cuda:3"), 10)
    assert job.state == "refused"
    assert job.error == "worker 'cuda:3' is not one of this server's: cpu, cpu-2"


def test_history_records_each_runs_lane(pool):
    job = pool.wait(pool.submit(_job("ok"), target="cpu-2"), 120)
    run = pool.history.get(job.run_id)
    assert run["worker"]["lane"] == "cpu-2" and run["env"]["lane"] == "cpu-2"
    assert run["device"] == "cpu"


def test_a_lane_whose_thread_dies_fails_its_jobs_with_the_reason(tmp_path, monkeypatch):
    from runtime_lab.runner.lane import Lane

    def broken(self):
        raise RuntimeError("a bug in the dispatcher")

    monkeypatch.setattr(Lane, "_loop", broken)
    manager = JobManager(data_dir=tmp_path, gpus=0, cpu_workers=1, start=False, spare=False)
    try:
        job_id = manager.submit(_job("ok"))
        manager.lanes[0].thread.start()
        job = manager.wait(job_id, 10)
        assert job.state == "failed"
        assert job.error == "the cpu dispatcher stopped: RuntimeError: a bug in the dispatcher"
        assert manager.status()["lanes"][0]["worker_state"] == "failed"
    finally:
        manager.close()
