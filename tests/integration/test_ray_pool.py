"""The Ray backend on a local CPU cluster: lanes from resources, jobs in actors, restarts."""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest
import raycluster

ray = pytest.importorskip("ray")

from runtime_lab.runner import raypool  # noqa: E402
from runtime_lab.runner.process import WorkerDied  # noqa: E402
from runtime_lab.spec import build_spec  # noqa: E402

pytestmark = [pytest.mark.ray, pytest.mark.slow]

JOB_TIMEOUT_S = 120.0  # generous: other test runs may share this machine's two cores


@pytest.fixture(scope="module")
def cluster():
    raycluster.start(ray)
    yield ray.get_runtime_context().get_node_id()
    ray.shutdown()


@pytest.fixture(scope="module")
def pools(cluster, tmp_path_factory):
    """One pool per fake lane, shared by the tests (each actor start imports torch)."""
    env = {
        "RUNTIME_LAB_DATA_DIR": str(tmp_path_factory.mktemp("ray-lab")),
        "RUNTIME_LAB_TORCH_THREADS": "1",
    }
    made = {plan.device_type: raypool.RayPool(plan, env) for plan in raypool.cluster_plan()}
    yield made
    for pool in made.values():
        pool.close()


def run(pool, behaviour: str, job_id: str, **options):
    """Drive one job as the dispatcher does; (result, progress messages, worker record)."""
    spec = build_spec("selftest", "8", device="cpu", options={"behaviour": behaviour, **options})
    worker = pool.ensure()
    record = pool.sent()
    worker.send({"op": "run", "job_id": job_id, "spec": spec.to_dict()})
    progress, deadline = [], time.monotonic() + JOB_TIMEOUT_S
    while time.monotonic() < deadline:
        message = worker.receive(1.0)
        if message is None:
            continue
        if message["op"] == "result":
            return message, progress, record
        progress.append(message)
    raise AssertionError(f"{job_id}: no result within {JOB_TIMEOUT_S:.0f} s")


def test_connect_without_ray_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray then raises ImportError
    with pytest.raises(raypool.RayUnavailable, match="pip install -r requirements-ray.txt"):
        raypool.connect("local")


def test_cluster_plan_names_gpus_by_host_and_type(monkeypatch):
    def node(node_id, host, alive=True, **resources):
        return {
            "NodeID": node_id,
            "NodeManagerHostname": host,
            "Alive": alive,
            "Resources": resources,
        }

    nodes = [
        node("bbbbbbbb22", "gpu-box", GPU=2.0, **{"accelerator_type:H200": 1.0, "CPU": 64.0}),
        node("cccccccc33", "twin", **{"runtime_lab_gpu:fake-a": 2.0}),
        node("aaaaaaaa11", "twin", GPU=1.0),
        node("dddddddd44", "gone", alive=False, GPU=8.0),
    ]
    monkeypatch.setattr(ray, "nodes", lambda: nodes)
    lanes = raypool.cluster_plan()
    assert [lane.name for lane in lanes] == [
        "ray:aaaaaaaa/gpu:0",  # two nodes called "twin": named by their ids
        "ray:cccccccc/fake-a:0",
        "ray:cccccccc/fake-a:1",
        "ray:gpu-box/gpu:0",
        "ray:gpu-box/gpu:1",
    ]
    assert [lane.device_type for lane in lanes] == ["GPU", "fake-a", "fake-a", "H200", "H200"]
    assert lanes[3].resources == {"GPU": 1} and lanes[3].node == "bbbbbbbb22"
    assert lanes[2].resources == {"runtime_lab_gpu:fake-a": 1} and lanes[2].index == 1


def test_cluster_plan_lists_the_fake_lanes_of_this_node(cluster):
    raypool.connect("local")  # already connected: must not start a second instance
    assert ray.get_runtime_context().get_node_id() == cluster
    lanes = raypool.cluster_plan()
    assert [lane.device_type for lane in lanes] == ["fake-a", "fake-b"]
    for lane in lanes:
        assert lane.kind == "gpu" and lane.index == 0 and lane.node == cluster
        assert lane.name == f"ray:{lane.host}/{lane.device_type}:0"
        assert lane.resources == {f"runtime_lab_gpu:{lane.device_type}": 1}
        assert not lane.local


def test_jobs_run_in_the_actor_with_progress(pools):
    pool = pools["fake-a"]
    worker = pool.ensure()
    assert worker.pid != os.getpid()
    assert worker.env["pid"] == worker.pid and worker.env["host"] and worker.env["node"]
    assert worker.env["ray_actor"] and worker.baseline_probe is not None
    # extra_env reached the actor before torch was imported
    assert worker.env["torch_threads_source"] == "RUNTIME_LAB_TORCH_THREADS"

    result, _, record = run(pool, "ok", "j1")
    assert result["status"] == "done", result
    assert result["job_id"] == "j1" and result["result"]["pid"] == worker.pid
    assert record["backend"] == "ray" and record["pid"] == worker.pid
    assert record["actor"] == worker.env["ray_actor"] and record["node"] == worker.env["node"]
    assert record["started_as_spare"] is False

    result, progress, record = run(pool, "sleep", "j2", seconds=2)
    assert result["status"] == "done", result
    assert result["finished_mono"] - result["started_mono"] >= 2.0
    assert record["jobs_before"] >= 1 and record["pid"] == worker.pid
    assert progress and all(p["op"] == "progress" and p["job_id"] == "j2" for p in progress)
    assert "sleeping" in progress[-1]["stage"]
    assert len({(p["done"], p["stage"]) for p in progress}) == len(progress)  # only changes


def test_a_crash_raises_and_the_actor_restarts(pools):
    pool = pools["fake-a"]
    before = pool.ensure()
    with pytest.raises(WorkerDied, match=rf"Ray actor on .* \(pid {before.pid}\) died mid-job: \w"):
        run(pool, "crash", "boom")
    assert not before.alive()
    pool.drop()
    after = pool.ensure()
    assert after is not before and after.pid != before.pid
    assert after.env["ray_actor"] == before.env["ray_actor"]  # the same actor, a new process
    result, _, record = run(pool, "ok", "after-crash")
    assert result["status"] == "done" and result["result"]["pid"] == after.pid
    assert record["jobs_before"] == 0 and record["fresh_after_disturbed"] is False


def test_a_disturbing_job_retires_the_process(pools):
    pool = pools["fake-a"]
    result, _, _ = run(pool, "profile", "prof")
    assert result["status"] == "done" and result["disturbed"] == ["profiler"]
    disturbed_pid = pool.current.pid
    pool.retire(result["disturbed"])
    assert pool.replaced == 1
    result, _, record = run(pool, "ok", "after-profile")
    assert result["status"] == "done" and record["pid"] != disturbed_pid
    assert record["fresh_after_disturbed"] is True
    assert record["previous_disturbed_by"] == ["profiler"]


def test_each_lane_has_its_own_actor_and_they_run_at_once(pools):
    a, b = pools["fake-a"].ensure(), pools["fake-b"].ensure()
    assert a.env["ray_actor"] != b.env["ray_actor"] and a.pid != b.pid
    results: dict[str, dict] = {}

    def drive(name: str) -> None:
        results[name] = run(pools[name], "sleep", f"overlap-{name}", seconds=3)[0]

    threads = [threading.Thread(target=drive, args=(name,)) for name in ("fake-a", "fake-b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(JOB_TIMEOUT_S)
    ra, rb = results["fake-a"], results["fake-b"]
    assert ra["status"] == rb["status"] == "done"
    # one host, one CLOCK_MONOTONIC: the two jobs' intervals overlap
    assert max(ra["started_mono"], rb["started_mono"]) < min(
        ra["finished_mono"], rb["finished_mono"]
    )


def until_dead(actor, limit_s: float = 30.0) -> float:
    """Seconds until the actor's calls fail: ray.kill is asynchronous, so a call sent right
    after it may still reach the old process and be answered (seen once in CI)."""
    start = time.monotonic()
    while time.monotonic() - start < limit_s:
        try:
            ray.get(actor.hello.remote(), timeout=10)
        except ray.exceptions.RayActorError:
            return time.monotonic() - start
        time.sleep(0.2)
    return limit_s


def test_close_kills_the_actor_for_good_and_survives_shutdown(pools):
    # the module's last test: it shuts Ray down
    pool = pools["fake-b"]
    actor = pool._actor
    pool.close()
    dead_after_s = until_dead(actor)
    assert dead_after_s < 30.0
    time.sleep(2.0)  # long enough for a restart of this idle actor to have begun
    with pytest.raises(ray.exceptions.RayActorError):
        ray.get(actor.hello.remote(), timeout=60)  # killed for good, not restarted
    with pytest.raises(WorkerDied, match="closing"):
        pool.ensure()
    ray.shutdown()
    pools["fake-a"].close()
    assert not ray.is_initialized()  # ray.kill after shutdown would have started a new Ray
