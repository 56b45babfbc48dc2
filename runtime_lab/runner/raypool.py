"""The optional Ray backend: lanes on a Ray cluster's GPUs, each one restartable actor."""

from __future__ import annotations

import contextlib
import socket
import uuid
from typing import Any

from runtime_lab import __version__
from runtime_lab.runner.devices import LanePlan, RayUnavailable
from runtime_lab.runner.pool import worker_record
from runtime_lab.runner.process import WorkerDied
from runtime_lab.runner.rayactor import LabActor, RayWorker
from runtime_lab.runner.raylink import connected, required, summary

__all__ = ["RayPool", "RayUnavailable", "RayWorker", "cluster_plan", "connect"]

NAMESPACE = "runtime_lab"
REACH_TIMEOUT_S = 5.0
FAKE_GPU = "runtime_lab_gpu:"  # custom resource prefix: CPU stand-ins for a GPU type


def connect(address: str = "auto") -> None:
    """Join the cluster at `address` (`auto`, `ray://host:10001`) or start one here (`local`);
    does nothing when already connected. RayUnavailable says why it could not."""
    ray = required()
    if ray.is_initialized():
        return
    options: dict[str, Any] = {
        "namespace": NAMESPACE,
        "ignore_reinit_error": True,
        "log_to_driver": False,  # the actors' output is theirs; the server's log stays readable
        # no code is shipped: every node runs the Runtime Lab installed there (its version is
        # checked at each actor's hello), and only specs and results cross, as plain values
        "address": address,
    }
    if address == "local":
        options["include_dashboard"] = False
    else:
        _reachable(address)
    try:
        ray.init(**options)
    except Exception as exc:  # ConnectionError mostly, but gRPC and auth failures vary
        raise RayUnavailable(
            f"could not reach the Ray cluster at {address}: {summary(exc)}"
        ) from exc


def _reachable(address: str, timeout_s: float = REACH_TIMEOUT_S) -> None:
    """A host:port address answers a TCP connect, or RayUnavailable at once: ray.init itself
    keeps retrying an unreachable address for minutes."""
    hostport = address.removeprefix("ray://")
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit():
        return  # `auto` and the like: ray finds (or fails to find) the cluster itself
    try:
        socket.create_connection((host, int(port)), timeout=timeout_s).close()
    except OSError as exc:
        raise RayUnavailable(
            f"could not reach the Ray cluster at {address}: {exc.strerror or exc}"
        ) from exc


def shutdown() -> None:
    """Stop this process's Ray connection (and the instance `local` started); safe if none."""
    ray = connected()
    if ray is not None:
        with contextlib.suppress(Exception):
            ray.shutdown()


def cluster_plan() -> list[LanePlan]:
    """One lane per GPU of every alive node, and per unit of a `runtime_lab_gpu:<type>`
    resource; ordered by host, type, index."""
    nodes = [node for node in required().nodes() if node.get("Alive")]
    hostnames = [node.get("NodeManagerHostname") or "" for node in nodes]
    lanes = []
    for node in nodes:
        node_id, host = node["NodeID"], node.get("NodeManagerHostname") or ""
        if not host or hostnames.count(host) > 1:
            host = node_id[:8]  # containers often share a hostname: lane names must not
        resources = node.get("Resources") or {}
        accelerator = [
            k.split(":", 1)[1] for k in sorted(resources) if k.startswith("accelerator_type:")
        ]
        # (lane label, device type, the resource one lane reserves)
        kinds = [("gpu", accelerator[0] if accelerator else "GPU", "GPU")]
        kinds += [
            (k[len(FAKE_GPU) :], k[len(FAKE_GPU) :], k) for k in resources if k.startswith(FAKE_GPU)
        ]
        for label, device_type, key in kinds:
            for i in range(int(resources.get(key, 0))):
                lane = LanePlan(
                    name=f"ray:{host}/{label}:{i}",
                    kind="gpu",
                    index=i,
                    device_type=device_type,
                    node=node_id,
                    host=host,
                    resources={key: 1},
                )
                lanes.append(((host, device_type, label, i), lane))
    return [lane for _, lane in sorted(lanes, key=lambda pair: pair[0])]


class RayPool:
    """The lane's one actor, with the local WorkerPool's surface. No spare: Ray restarts the
    actor's process itself after a kill, and the next ensure() waits for its hello."""

    def __init__(self, plan: LanePlan, extra_env: dict[str, str], spare: bool = True):
        self.plan = plan
        self.extra_env = dict(extra_env)
        self.current: RayWorker | None = None
        self.spare = None
        self.starting_spare = False
        self.closed = False
        self.jobs_run = 0  # jobs the current incarnation has been sent
        self.replaced = 0  # incarnations retired because a job disturbed them
        self._retired_for: list[str] = []
        self._actor = None
        self._created = 0
        self._stale_pid: int | None = None  # the last incarnation known killed or dead
        self._starting: RayWorker | None = None

    def _create(self):
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        plan = self.plan
        custom = {k: v for k, v in plan.resources.items() if k not in ("GPU", "CPU")}
        strategy = NodeAffinitySchedulingStrategy(plan.node, soft=False) if plan.node else "DEFAULT"
        self._created += 1
        name = f"{plan.name}#{uuid.uuid4().hex[:8]}-{self._created}"  # one per pool and actor
        try:
            return (
                required()
                .remote(LabActor)
                .options(
                    num_gpus=plan.resources.get("GPU", 0),
                    num_cpus=plan.resources.get("CPU", 0),  # the lane's host timing is its own
                    resources=custom,
                    scheduling_strategy=strategy,
                    max_restarts=-1,
                    max_task_retries=0,  # a job is never rerun behind the dispatcher's back
                    max_concurrency=2,
                    name=name,
                    namespace=NAMESPACE,
                )
                .remote(self.extra_env)
            )
        except Exception as exc:
            raise WorkerDied(
                f"could not create the Ray actor for {plan.name}: {summary(exc)}"
            ) from exc

    def ensure(self) -> RayWorker:
        """The handle for the next job: the current incarnation, else the next one Ray starts
        (WorkerDied when it cannot start)."""
        if self.closed:
            raise WorkerDied("the lab is closing")
        if self.current is not None and self.current.alive():
            return self.current
        if self.current is not None:
            self._stale_pid, self.current = self.current.pid, None
        if self._actor is None:
            self._actor = self._create()
        worker = RayWorker(self._actor, self.plan.host or self.plan.name)
        self._starting = worker
        try:
            worker.start(self._stale_pid)
        except WorkerDied:
            self._forget_actor()  # never placed or dead for good: the next ensure() makes one
            raise
        finally:
            self._starting = None
        if self.closed:
            raise WorkerDied("the lab is closing")
        theirs = worker.env.get("runtime_lab")
        if theirs != __version__:
            self._forget_actor()
            raise WorkerDied(
                f"{self.plan.host or self.plan.name} runs Runtime Lab {theirs}, this server "
                f"{__version__}: install the same version on every node"
            )
        self.current, self.jobs_run = worker, 0
        return worker

    def wants_spare(self) -> bool:
        return False  # Ray restarts a killed actor on its own: there is no spare to start

    def start_spare(self, yields: bool = False) -> None:
        """Nothing to do (see wants_spare)."""

    def give_way(self) -> bool:
        return False  # no spare starts here

    def sent(self) -> dict[str, Any]:
        """Call when a job goes to the current incarnation: the run's `worker` record."""
        worker = self.current
        record = {
            **worker_record(worker, self.jobs_run, self._retired_for, from_spare=False),
            "node": worker.env.get("node") or self.plan.node,
            "host": worker.env.get("host") or self.plan.host,
            "backend": "ray",
            "actor": worker.env.get("ray_actor"),
        }
        self.jobs_run += 1
        return record

    def _kill_current(self) -> None:
        if self.current is not None:
            self._stale_pid = self.current.pid
            self.current.kill()
        self.current = None

    def retire(self, reasons: list[str]) -> None:
        """The job turned a tool on: kill the process; the next job goes to Ray's fresh one."""
        self._kill_current()
        self._retired_for = list(reasons)
        self.replaced += 1

    def drop(self) -> None:
        """The job crashed, hung or was cancelled: kill the process (Ray restarts it)."""
        self._kill_current()
        self._retired_for = []

    def _forget_actor(self) -> None:
        actor, self._actor = self._actor, None
        ray = connected()
        if actor is not None and ray is not None:
            with contextlib.suppress(Exception):
                ray.kill(actor, no_restart=True)

    def close(self) -> None:
        """Kill the actor for good; safe after ray.shutdown()."""
        self.closed = True
        for worker in (self.current, self._starting):
            if worker is not None:
                worker.give_up()  # its start() then gives up; no restart is asked for
        self._forget_actor()
