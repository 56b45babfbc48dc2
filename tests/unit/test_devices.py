"""Lane planning and routing (torch-free): which worker a job goes to, and what it is told."""

import pytest

from runtime_lab import envvars
from runtime_lab.env import THREADS_ENV, choose_torch_threads
from runtime_lab.runner import devices
from runtime_lab.runner.devices import LanePlan, RouteError


def test_local_plan_pins_each_gpu_and_hides_cuda_from_cpu_workers(monkeypatch):
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    lanes = devices.local_plan(gpus=2, cpus=2)
    assert [lane.name for lane in lanes] == ["cuda:0", "cuda:1", "cpu", "cpu-2"]
    assert [lane.env["CUDA_VISIBLE_DEVICES"] for lane in lanes] == ["0", "1", "", ""]
    assert [lane.kind for lane in lanes] == ["gpu", "gpu", "cpu", "cpu"]


def test_a_pinned_server_pins_its_workers_inside_its_own_set(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3,GPU-abc")
    lanes = devices.local_plan(gpus=2, cpus=1)
    assert [lane.env["CUDA_VISIBLE_DEVICES"] for lane in lanes[:2]] == ["3", "GPU-abc"]


def _lanes(gpus=2, cpus=1):
    return devices.local_plan(gpus=gpus, cpus=cpus)


@pytest.mark.parametrize(
    ("device", "load", "expected"),
    [
        ("auto", {}, "cuda:0"),
        ("auto", {"cuda:0": 1}, "cuda:1"),
        ("cuda", {"cuda:0": 2, "cuda:1": 1}, "cuda:1"),
        ("cuda", {"cuda:0": 1, "cuda:1": 1}, "cuda:0"),  # a tie goes to the first
        ("cuda:1", {"cuda:1": 5}, "cuda:1"),  # named: never moved, however busy
        ("cpu", {}, "cpu"),
    ],
)
def test_route_by_device_and_load(device, load, expected):
    assert devices.route(device, _lanes(), load).name == expected


def test_cpu_jobs_spread_over_cpu_workers():
    lanes = _lanes(gpus=0, cpus=2)
    assert devices.route("cpu", lanes, {"cpu": 1}).name == "cpu-2"
    assert devices.route("auto", lanes, {"cpu": 0, "cpu-2": 1}).name == "cpu"


def test_a_gpu_index_this_server_lacks_is_refused_with_the_choices():
    with pytest.raises(
        RouteError, match=r"'cuda:2': this machine has 2 GPU\(s\); allowed: cuda:0, cuda:1"
    ):
        devices.route("cuda:2", _lanes(), {})


def test_without_gpus_a_cuda_job_goes_to_the_cpu_worker_which_refuses_it_itself():
    assert devices.route("cuda", _lanes(gpus=0), {}).name == "cpu"


def test_target_names_a_lane_or_is_refused_with_the_names():
    assert devices.route("auto", _lanes(), {}, target="cuda:1").name == "cuda:1"
    with pytest.raises(RouteError, match="not one of this server's: cuda:0, cuda:1, cpu"):
        devices.route("auto", _lanes(), {}, target="cuda:7")


def test_remote_gpu_lanes_serve_auto_when_there_is_no_local_gpu():
    remote = LanePlan(name="ray:h1/gpu:0", kind="gpu", node="n1", host="h1")
    lanes = [*_lanes(gpus=0), remote]
    assert devices.route("auto", lanes, {}).name == "ray:h1/gpu:0"
    assert devices.route("cpu", lanes, {}).name == "cpu"


def test_a_pinned_worker_is_told_cuda_and_its_answer_is_named_by_the_server():
    lane = _lanes()[1]
    assert devices.worker_device("cuda:1", lane) == "cuda"
    assert devices.worker_device("auto", lane) == "auto"
    assert devices.worker_device("cpu", lane) == "cpu"
    assert devices.recorded_device("cuda:0", lane) == "cuda:1"
    assert devices.recorded_device("cpu", lane) == "cpu"


def test_merged_env_lists_every_gpu_under_its_server_index_and_waits_for_gpu_workers():
    lanes = _lanes()
    gpu = {"name": "NVIDIA H200", "index": 0}
    envs = [(lanes[0], {"gpus": [gpu], "torch": "2.11"}), (lanes[1], {}), (lanes[2], {"gpus": []})]
    merged = devices.merged_env(envs)
    assert merged["gpus"] == [{**gpu, "index": 0, "lane": "cuda:0"}] and merged["torch"] == "2.11"
    envs[1] = (lanes[1], {"gpus": [gpu]})
    assert [g["index"] for g in devices.merged_env(envs)["gpus"]] == [0, 1]
    # only the CPU worker is up: the host is not called CPU-only while its GPU workers start
    assert devices.merged_env([(lanes[0], {}), (lanes[2], {"gpus": []})]) == {}
    assert devices.merged_env([(lanes[2], {"gpus": [], "torch": "x"})])["gpus"] == []


def test_cpu_workers_from_the_environment(monkeypatch):
    monkeypatch.setattr(envvars, "cores", lambda: 4)
    monkeypatch.setenv(devices.CPU_WORKERS_ENV, "3")
    assert devices.cpu_workers() == 3
    for bad in ("lots", "5", "0", "²"):  # the app and CLI refuse these; a reader takes 1
        monkeypatch.setenv(devices.CPU_WORKERS_ENV, bad)
        assert devices.cpu_workers() == 1
    assert devices.cpu_workers(2) == 2


def test_no_driver_means_no_gpu_count_and_no_child(monkeypatch):
    monkeypatch.setattr(devices, "gpu_likely", lambda: False)
    monkeypatch.setattr(devices.child, "run_python", lambda *a, **k: pytest.fail("ran a child"))
    assert devices.count_gpus() == (0, None)


@pytest.mark.parametrize(
    ("answer", "count", "note"),
    [
        (("2\n", None), 2, None),
        (("", "did not finish in 120 s"), 0, "could not count the GPUs (did not finish in 120 s)"),
        (("warning\n", None), 0, "could not count the GPUs (no count printed)"),
    ],
)
def test_the_gpu_count_is_read_from_one_child_through_the_helper(monkeypatch, answer, count, note):
    monkeypatch.setattr(devices, "gpu_likely", lambda: True)
    asked = []
    monkeypatch.setattr(devices.child, "run_python", lambda *a, **k: asked.append(a) or answer)
    found, said = devices.count_gpus()
    assert found == count and len(asked) == 1 and asked[0][1] == devices.COUNT_TIMEOUT_S
    assert said == note or said.startswith(note)


def test_a_cpu_worker_beside_gpu_workers_leaves_a_core_for_each(monkeypatch):
    monkeypatch.delenv(THREADS_ENV, raising=False)
    monkeypatch.setattr(devices, "physical_cores", lambda: 16)
    monkeypatch.setattr(envvars, "cores", lambda: 16)
    cpu = devices.local_plan(gpus=2, cpus=1)[-1]
    assert cpu.env[THREADS_ENV] == "13"  # 16 - 1 (server and browser) - 2 GPU workers
    assert "2 GPU worker(s)" in cpu.env[devices.THREADS_SOURCE_ENV]
    assert {lane.env[THREADS_ENV] for lane in devices.local_plan(gpus=0, cpus=3)} == {"5"}
    assert THREADS_ENV not in devices.local_plan(gpus=0, cpus=1)[0].env  # alone: its own choice
    monkeypatch.setenv(THREADS_ENV, "4")  # the user's setting wins
    assert THREADS_ENV not in devices.local_plan(gpus=2, cpus=1)[-1].env


def test_the_pools_thread_choice_is_said_as_its_reason(monkeypatch):
    monkeypatch.setattr(envvars, "cores", lambda: 16)
    monkeypatch.setenv(THREADS_ENV, "13")
    monkeypatch.setenv(devices.THREADS_SOURCE_ENV, "physical cores - 1 - 2 GPU worker(s)")
    assert choose_torch_threads() == (13, "physical cores - 1 - 2 GPU worker(s)")
    monkeypatch.delenv(devices.THREADS_SOURCE_ENV)
    assert choose_torch_threads() == (13, THREADS_ENV)


def test_a_clusters_gpus_are_the_servers_cuda_n_and_are_listed_in_its_env():
    remote = [
        LanePlan(name=f"ray:h{i}/gpu:0", kind="gpu", device_type="H200", node=f"n{i}", host=f"h{i}")
        for i in (1, 2)
    ]
    lanes = [*remote, *devices.local_plan(0, 1)]
    assert devices.route("cuda:1", lanes, {}).name == "ray:h2/gpu:0"
    cpu_env = {"gpus": [], "hostname": "server"}
    gpu = {"name": "NVIDIA H200", "index": 0}
    envs = [(remote[0], {"gpus": [gpu], "hostname": "h1"}), (remote[1], {}), (lanes[2], cpu_env)]
    merged = devices.merged_env(envs)
    assert merged["hostname"] == "server"  # the server's own host, not a node's
    assert merged["gpus"] == [{**gpu, "index": 0, "lane": "ray:h1/gpu:0"}]
    assert devices.merged_env([(remote[0], {}), (lanes[2], cpu_env)]) == {}  # GPUs still starting
