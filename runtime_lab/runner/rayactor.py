"""Both ends of a lab actor: LabActor in a Ray worker process, RayWorker the server's handle."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import threading
import time
from typing import Any

from runtime_lab.runner.process import START_TIMEOUT_S, WorkerDied
from runtime_lab.runner.raylink import connected, required, summary

POLL_EVERY_S = 0.2  # progress polls: each is a round trip to the actor, in the job's process

# ray.remote is applied in raypool and ray is imported only where used, so this module
# imports (and the server starts) without the optional package


class _Box:
    """Stands in for the worker's pipe: run_job sends JSON bytes through it; keeps the latest
    progress message (read by progress() from the actor's other thread) and the result."""

    def __init__(self) -> None:
        self.progress: dict[str, Any] | None = None
        self.result: dict[str, Any] | None = None

    def send_bytes(self, data: bytes) -> None:
        # decoded here, as the server's WorkerProcess would: what comes back is the job's
        # JSON as sent, not the objects it was made from
        message = json.loads(data)
        if message.get("op") == "progress":
            self.progress = message  # one reference swap: safe against the reading thread
        elif message.get("op") == "result":
            self.result = message


class LabActor:
    """One lane's worker process on a Ray node. Threaded (max_concurrency=2, set by raypool)
    only so progress() answers while run() executes; the pool sends one run at a time."""

    def __init__(self, extra_env: dict[str, str]):
        import ray

        given_gpus = os.environ.get("CUDA_VISIBLE_DEVICES")
        os.environ.update(extra_env)
        context = ray.get_runtime_context()
        gpu_ids = context.get_accelerator_ids().get("GPU") or []
        if gpu_ids and given_gpus is not None:
            # Ray's choice wins: its reservation is what keeps two lanes off one GPU
            os.environ["CUDA_VISIBLE_DEVICES"] = given_gpus
        if "OMP_NUM_THREADS" not in extra_env:
            # Ray sets 1 for an actor of num_cpus=0; a local worker has none and picks its
            # thread count itself (choose_torch_threads), so remote figures compare
            os.environ.pop("OMP_NUM_THREADS", None)

        import runtime_lab
        from runtime_lab.env import fingerprint
        from runtime_lab.runner import worker

        self._worker = worker
        threads_source, self.baseline = worker.start_up()
        self.env = {
            **fingerprint(threads_source),
            "node": context.get_node_id(),
            "host": platform.node(),
            "ray_actor": context.get_actor_id(),
            "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
            "ray_gpu_ids": [str(i) for i in gpu_ids],
            "runtime_lab": runtime_lab.__version__,  # the server refuses a node of another
        }
        self._box: _Box | None = None

    def hello(self) -> dict[str, Any]:
        return {"op": "hello", "pid": os.getpid(), "env": self.env, "probe": self.baseline}

    def run(
        self, job_id: str, spec: dict[str, Any], reuse: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Run one job; the result message as run_job sent it, and whether this process may
        take another job (False: the CUDA context may be broken, the pool restarts us)."""
        box = self._box = _Box()
        keep_going = self._worker.run_job(box, job_id, spec, self.baseline, reuse)
        return {"result": box.result, "keep_going": bool(keep_going), "pid": os.getpid()}

    def progress(self) -> dict[str, Any] | None:
        box = self._box
        return box.progress if box is not None else None


class RayWorker:
    """One process (incarnation) of a lane's actor, with the WorkerProcess surface the
    dispatcher uses. The actor outlives it: Ray restarts the process, a new handle greets it."""

    def __init__(self, actor, host: str):
        self.actor, self.host = actor, host
        self.env: dict[str, Any] = {}
        self.pid: int | None = None
        self.baseline_probe: dict[str, Any] | None = None
        self.ready_mono: float | None = None
        self._run = None  # the running job's ObjectRef
        self._poll = None  # a progress() call not answered yet
        self._next_poll = 0.0
        self._last_progress: dict[str, Any] | None = None
        self._lock = threading.Lock()
        self._gone = False  # killed by us or seen dead: never ray.kill a later incarnation

    def start(self, stale_pid: int | None = None, timeout_s: float = START_TIMEOUT_S) -> None:
        """Wait for the hello of an incarnation other than `stale_pid` (ray.kill is
        asynchronous: the killed process may still answer a call sent right after it)."""
        ray = required()
        deadline = time.monotonic() + timeout_s
        while True:
            left = deadline - time.monotonic()
            if self._gone or left <= 0:
                why = (
                    "was stopped while it started"
                    if self._gone
                    else f"sent no greeting within {timeout_s:.0f} s"
                )
                raise WorkerDied(f"the Ray actor on {self.host} {why}")
            try:
                hello = ray.get(self.actor.hello.remote(), timeout=left)
            except ray.exceptions.GetTimeoutError:
                continue
            except ray.exceptions.ActorUnavailableError:
                time.sleep(POLL_EVERY_S)  # restarting: calls sent to the old process fail
                continue
            except ray.exceptions.RayError as exc:  # died in its constructor, or killed for good
                raise WorkerDied(
                    f"the Ray actor on {self.host} did not start: {summary(exc)}"
                ) from exc
            if hello.get("pid") != stale_pid:
                break
            time.sleep(POLL_EVERY_S)
        self.env, self.pid = hello["env"], hello["pid"]
        self.baseline_probe = hello.get("probe")
        self.ready_mono = time.monotonic()

    def send(self, message: dict[str, Any]) -> None:
        if message.get("op") != "run":
            return  # shutdown: stop() kills; nothing else is sent to a worker
        ray = connected()
        if ray is None or self._gone:
            raise WorkerDied(f"the Ray actor on {self.host} is gone")
        self._run = self.actor.run.remote(message["job_id"], message["spec"], message.get("reuse"))
        self._poll, self._last_progress = None, None
        self._next_poll = time.monotonic() + POLL_EVERY_S

    def receive(self, timeout_s: float) -> dict[str, Any] | None:
        """The next changed progress message or the job's result, None if neither came within
        timeout_s; WorkerDied when the actor died mid-job."""
        deadline = time.monotonic() + timeout_s
        ray = connected()
        if ray is None:
            raise WorkerDied("Ray was shut down")
        if self._run is None:
            if self._gone:
                raise WorkerDied(f"the Ray actor on {self.host} is gone")
            time.sleep(max(0.0, timeout_s))
            return None
        while True:
            now = time.monotonic()
            if self._poll is None and now >= self._next_poll:
                self._poll, self._next_poll = self.actor.progress.remote(), now + POLL_EVERY_S
            refs = [self._run] + ([self._poll] if self._poll is not None else [])
            wait_s = max(0.0, min(deadline, self._next_poll) - now)
            ready, _ = ray.wait(refs, num_returns=1, timeout=wait_s)
            if self._run in ready:
                return self._finish(ray)
            if self._poll is not None and self._poll in ready:
                poll, self._poll = self._poll, None
                try:
                    message = ray.get(poll)
                except ray.exceptions.RayError:
                    message = None  # the run's own reference tells how the actor died
                if message and message != self._last_progress:
                    self._last_progress = message
                    return message
            if time.monotonic() >= deadline:
                return None

    def _finish(self, ray) -> dict[str, Any]:
        ref, self._run, self._poll = self._run, None, None
        try:
            reply = ray.get(ref)
        except ray.exceptions.RayActorError as exc:
            self._gone = True  # Ray restarts it (max_restarts=-1); killing would hit the new one
            where = f"the Ray actor on {self.host} (pid {self.pid})"
            raise WorkerDied(f"{where} died mid-job: {summary(exc)}") from exc
        except ray.exceptions.RayError as exc:  # run() itself raised: the process is suspect
            self.kill()
            raise WorkerDied(f"the Ray actor on {self.host} failed: {summary(exc)}") from exc
        if not reply.get("keep_going", True) or reply.get("result") is None:
            self.kill()  # as the local worker exits after such a job: the next one gets a fresh one
        if reply.get("result") is None:
            raise WorkerDied(f"the Ray actor on {self.host} sent no result")
        return reply["result"]

    def alive(self) -> bool:
        """False once killed, seen dead, or restarted by Ray behind our back (the GCS's record
        shows another pid); the record is debugging API, so its absence means alive."""
        if self._gone:
            return False
        ray = connected()
        if ray is None:
            return False
        try:
            record = ray._private.state.actors(self.env["ray_actor"])
            state, pid = record.get("State"), record.get("Pid")
        except Exception:  # Ray Client mode, or the private API moved
            return True
        if state == "ALIVE" and pid in (None, 0, self.pid):
            return True
        self._gone = True
        return False

    def give_up(self) -> None:
        """The pool closed: a start() under way gives up, and nothing is killed or restarted."""
        self._gone = True

    def kill(self) -> None:
        """Kill this process; Ray starts a fresh one (its constructor runs again)."""
        with self._lock:
            if self._gone:
                return
            self._gone = True
        ray = connected()
        if ray is not None:
            with contextlib.suppress(Exception):
                ray.kill(self.actor, no_restart=False)

    def stop(self) -> None:
        self.kill()  # nothing in the process is worth a polite exit
