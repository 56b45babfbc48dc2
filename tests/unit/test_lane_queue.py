"""The job table queues, places, joins, cancels and fails jobs through its lanes' own methods
(runner/lane.py), with no dispatcher thread and no worker: the lanes are never started."""

from __future__ import annotations

import pytest

from runtime_lab.runner import devices
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import RunSpec


def _spec(n: int) -> RunSpec:
    return RunSpec(experiment="selftest", shape=(n,), device="cpu")


@pytest.fixture
def manager(tmp_path):
    jobs = JobManager(data_dir=tmp_path, start=False, spare=False, plans=devices.local_plan(0, 1))
    yield jobs
    jobs.close()


def test_queued_jobs_keep_their_order_and_a_twin_joins_instead_of_queueing(manager):
    ids = [manager.submit(_spec(n)) for n in (1, 2, 3)]
    assert [manager.get(i).position for i in ids] == [1, 2, 3]
    assert manager.submit(_spec(2)) == ids[1]  # identical spec: joined, not queued again
    assert manager.get(ids[1]).joined == 2
    [lane] = manager.lanes
    assert lane.load == 3 and manager.status()["queued"] == 3


def test_a_cancelled_queued_job_leaves_the_lane_and_the_rest_move_up(manager):
    first, second, third = (manager.submit(_spec(n)) for n in (1, 2, 3))
    assert manager.cancel(second)
    assert manager.get(second).state == "cancelled"
    assert [manager.get(i).position for i in (first, third)] == [1, 2]
    assert not manager.cancel(second)  # finished: nothing left to cancel
    assert manager.lanes[0].load == 2


def test_a_dead_lane_fails_every_job_it_held_and_is_left_empty(manager):
    ids = [manager.submit(_spec(n)) for n in (1, 2)]
    [lane] = manager.lanes
    manager.fail_lane(lane, "the cpu dispatcher stopped: boom")
    assert [(manager.get(i).state, manager.get(i).error) for i in ids] == [
        ("failed", "the cpu dispatcher stopped: boom")
    ] * 2
    assert lane.load == 0 and lane.running is None
    later = manager.submit(_spec(3))
    assert manager.get(later).position == 1  # the lane queues again from empty
