"""Which workers a server runs (one per visible GPU, plus CPU workers) and which one a job goes to."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from runtime_lab import envvars
from runtime_lab.env import THREADS_ENV, THREADS_SOURCE_ENV, gpu_likely, physical_cores
from runtime_lab.envvars import CPU_WORKERS_ENV, RAY_ADDRESS_ENV
from runtime_lab.lab import child  # torch-free: the server starts its children through it

COUNT_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class LanePlan:
    """One worker slot: its name (`cuda:1`, `cpu`, `ray:<node>/gpu:0`), kind (`gpu` or `cpu`),
    the device type it offers (GPU name or `cpu`), where it lives, and the environment that
    pins its worker to its device."""

    name: str
    kind: str
    index: int = 0  # position among the lanes of its kind on its host
    device_type: str = ""
    node: str = ""  # Ray node id ("" for the server's own host)
    host: str = ""
    env: dict[str, str] = field(default_factory=dict)
    resources: dict[str, float] = field(default_factory=dict)  # what a Ray actor reserves

    @property
    def local(self) -> bool:
        return not self.node


class RayUnavailable(Exception):
    """Ray is not installed or its cluster cannot be reached; the message says which. Defined
    here, not in the Ray modules, so the CLI and the app can catch it without importing ray."""


class RouteError(ValueError):
    """The spec names a device no worker here serves; the message says what is allowed."""


def count_gpus() -> tuple[int, str | None]:
    """GPUs this server's workers could use, and a note when the count could not be taken.
    Counted by torch in a child process: the server itself never imports torch or CUDA."""
    if not gpu_likely():
        return 0, None  # no NVIDIA driver: nothing to count (and no torch import to pay)
    code = "import torch; print(torch.cuda.device_count() if torch.cuda.is_available() else 0)"
    out, why = child.run_python(["-c", code], COUNT_TIMEOUT_S, cwd=None)
    last = out.strip().splitlines()[-1:] or [""]
    if why or not last[0].isdigit():
        return 0, f"could not count the GPUs ({why or 'no count printed'}); running on the CPU only"
    return int(last[0]), None


def cpu_workers(override: int | None = None) -> int:
    """CPU workers: the override, else $RUNTIME_LAB_CPU_WORKERS (1 to the cores, envvars.py),
    else 1 (more only make sense on a host with cores to spare: CPU jobs share its cores)."""
    if override is not None:
        return max(1, int(override))
    return envvars.value(CPU_WORKERS_ENV)


def ray_address() -> str:
    """$RUNTIME_LAB_RAY_ADDRESS (`auto`, `ray://host:10001`, `local`), "" when unset: the
    server then runs its own pool and never imports ray."""
    return envvars.value(RAY_ADDRESS_ENV)


def _pin(index: int) -> str:
    """CUDA_VISIBLE_DEVICES for the index-th GPU this server sees (it may itself be pinned)."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible:
        ids = [v.strip() for v in visible.split(",") if v.strip()]
        if index < len(ids):
            return ids[index]
    return str(index)


def local_plan(gpus: int, cpus: int = 1) -> list[LanePlan]:
    """One lane per GPU (its worker sees only that GPU, as its cuda:0), then the CPU lanes
    (their workers see no GPU, so a CPU job never creates a CUDA context)."""
    lanes = [
        LanePlan(name=f"cuda:{i}", kind="gpu", index=i, env={"CUDA_VISIBLE_DEVICES": _pin(i)})
        for i in range(gpus)
    ]
    cpu_env = {"CUDA_VISIBLE_DEVICES": "", **_cpu_threads(gpus, cpus)}
    for i in range(cpus):
        name = "cpu" if i == 0 else f"cpu-{i + 1}"
        lanes.append(LanePlan(name=name, kind="cpu", index=i, device_type="cpu", env=cpu_env))
    return lanes


def _cpu_threads(gpus: int, cpus: int) -> dict[str, str]:
    """Intra-op threads for each CPU worker when it shares the host with others: a core left
    for every GPU worker (its launches are host-bound at small shapes) and the cores split
    between CPU workers. Nothing when alone, or when $RUNTIME_LAB_TORCH_THREADS says."""
    if (gpus == 0 and cpus == 1) or envvars.value(THREADS_ENV) is not None:
        return {}
    threads = max(1, (physical_cores() - 1 - gpus) // cpus)
    why = f"physical cores - 1 - {gpus} GPU worker(s), split over {cpus} CPU worker(s)"
    return {THREADS_ENV: str(threads), THREADS_SOURCE_ENV: why}


def _least_busy(lanes: list[LanePlan], load: dict[str, int]) -> LanePlan:
    # fewest queued + running jobs; ties go to the first (cuda:0 before cuda:1)
    return min(lanes, key=lambda lane: (load.get(lane.name, 0), lanes.index(lane)))


def route(
    device: str, lanes: list[LanePlan], load: dict[str, int], target: str | None = None
) -> LanePlan:
    """The lane a job runs on: the one named by `target`, else by its device: `cpu` → the
    least-busy CPU lane; `auto` and `cuda` → the least-busy GPU lane (CPU when there is none);
    `cuda:N` → the N-th GPU of this server. RouteError names what is allowed."""
    if target is not None:
        for lane in lanes:
            if lane.name == target:
                return lane
        names = ", ".join(lane.name for lane in lanes)
        raise RouteError(f"worker {target!r} is not one of this server's: {names}")
    gpus = [lane for lane in lanes if lane.kind == "gpu"]  # this host's, or the cluster's
    cpus = [lane for lane in lanes if lane.kind == "cpu"] or lanes
    if device.startswith("cuda:") and gpus:
        index = int(device.split(":")[1])
        if index >= len(gpus):
            allowed = ", ".join(f"cuda:{i}" for i in range(len(gpus)))
            raise RouteError(
                f"device {device!r}: this machine has {len(gpus)} GPU(s); allowed: {allowed}"
            )
        return gpus[index]
    if device in ("auto", "cuda") and gpus:
        return _least_busy(gpus, load)
    # cpu, or a GPU device with no GPU here: the CPU worker refuses the latter with its message
    return _least_busy(cpus, load)


def worker_device(device: str, lane: LanePlan) -> str:
    """The device as the lane's worker sees it: a pinned worker's one GPU is its cuda:0."""
    if lane.kind == "gpu" and (device == "cuda" or device.startswith("cuda:")):
        return "cuda"
    return device


def recorded_device(device: str | None, lane: LanePlan) -> str | None:
    """The worker's answer (`cuda:0` in a pinned worker) as this server names the device."""
    if device and device.startswith("cuda") and lane.kind == "gpu" and lane.local:
        return lane.name
    return device


def merged_env(envs: list[tuple[LanePlan, dict[str, Any]]]) -> dict[str, Any]:
    """The server's environment from its workers': this host's first GPU worker's (else its
    first worker's), with every GPU worker's GPU, this host's or the cluster's, listed under
    the index `cuda:N` routes by (its place among the GPU lanes)."""
    ready = [(lane, env) for lane, env in envs if env]
    gpu_lanes = [lane for lane, _ in envs if lane.kind == "gpu"]
    gpu_envs = [(lane, env) for lane, env in ready if lane.kind == "gpu"]
    if not ready or (gpu_lanes and not gpu_envs):
        return {}  # the GPU workers are still starting: don't call this host CPU-only yet
    local = [(lane, env) for lane, env in ready if lane.local]
    first = [pair for pair in local if pair[0].kind == "gpu"] or local or ready
    base = dict(first[0][1])
    gpus = []
    for lane, env in gpu_envs:
        for gpu in env.get("gpus") or []:
            gpus.append({**gpu, "index": gpu_lanes.index(lane), "lane": lane.name})
    base["gpus"] = gpus
    base.pop("lane", None)
    return base
