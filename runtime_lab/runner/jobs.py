"""One job table shared by every session; each device's lane runs its own queue, one job at a time."""

from __future__ import annotations

import atexit
import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import replace
from pathlib import Path
from typing import Any

from runtime_lab import config, envvars, registry
from runtime_lab.record import Run
from runtime_lab.runner import devices, forked, served_zygote
from runtime_lab.runner.devices import LanePlan, RouteError
from runtime_lab.runner.job import ACTIVE, FINISHED, Job, alongside, wall
from runtime_lab.runner.lane import Lane
from runtime_lab.runner.pool import WorkerPool, worker_env
from runtime_lab.runner.process import WorkerProcess
from runtime_lab.spec import RunSpec
from runtime_lab.store.history import History, HistoryError

__all__ = ["ACTIVE", "FINISHED", "Job", "JobManager", "worker_env"]

KEEP_FINISHED = 500  # finished jobs kept in memory for polling; history keeps them for good
CLOSE_JOIN_S = 15.0  # how long close() waits for the lanes' threads to let go of their workers


class JobManager:
    """Thread-safe job table + one lane (queue, dispatcher thread, worker) per device: one per
    visible GPU and the CPU workers, or a Ray cluster's GPUs. Finished runs go to history."""

    def __init__(
        self,
        data_dir: str | Path | None = None,
        timeout_s: float | None = None,
        start: bool = True,
        spare: bool = True,  # keep a warm spare worker per lane (the CLI has no use for it)
        lazy: bool = False,  # start a lane's worker with its first job, not at once (the CLI)
        gpus: int | None = None,  # lanes for this many GPUs (None: count them)
        cpu_workers: int | None = None,  # None: $RUNTIME_LAB_CPU_WORKERS, else 1
        plans: list[LanePlan] | None = None,  # the lanes outright (tests)
        ray_address: str | None = None,  # None: $RUNTIME_LAB_RAY_ADDRESS; "": this host only
    ):
        self.data_dir = config.data_dir(data_dir)
        self.timeout_s = timeout_s or envvars.value(envvars.JOB_TIMEOUT_ENV)
        self.history_notice: str | None = None
        try:
            self.history: History | None = History(self.data_dir / "history.sqlite3")
            self.history_notice = self.history.notice
        except HistoryError as exc:
            self.history, self.history_notice = None, str(exc)
        self.lock = threading.Condition()  # the job table's and every lane's queue's
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._cancel: set[str] = set()
        # a running job's reuse stage and the stored run it took figures from (lend)
        self._lenders: dict[str, tuple[Any, Run]] = {}
        self._stopped = False
        self.devices_note: str | None = None
        # with spares (the server): one process imports torch once and forks each worker; a
        # zygote the test session serves ($RUNTIME_LAB_ZYGOTE_AT) forks them even for the CLI
        self.zygote = served_zygote.from_env() or (
            forked.Zygote() if spare and envvars.value(envvars.ZYGOTE_ENV) else None
        )
        self._env_override: dict[str, Any] | None = None
        self.ray_address = devices.ray_address() if ray_address is None else ray_address
        if plans is None and self.ray_address:
            plans = self._cluster_plans(devices.cpu_workers(cpu_workers))
        if plans is None:
            if gpus is None:
                gpus, self.devices_note = devices.count_gpus()
            plans = devices.local_plan(gpus, devices.cpu_workers(cpu_workers))
        self.lanes = [Lane(self, plan, self._pool(plan, spare), eager=not lazy) for plan in plans]
        if start:
            for lane in self.lanes:
                lane.thread.start()
        atexit.register(self.close)

    def _cluster_plans(self, cpus: int) -> list[LanePlan]:
        """A Ray cluster's GPUs, one lane each, plus this host's CPU workers (a CPU job needs
        no cluster). devices.RayUnavailable when ray is missing or out of reach."""
        from runtime_lab.runner import raypool  # only with the Ray backend: ray is optional

        raypool.connect(self.ray_address)
        return raypool.cluster_plan() + devices.local_plan(0, cpus)

    def _pool(self, plan: LanePlan, spare: bool) -> Any:
        env = {**worker_env(self.data_dir), **plan.env}
        if plan.local:
            return WorkerPool(env, spare=spare, zygote=self.zygote)
        from runtime_lab.runner.raypool import RayPool  # only with the Ray backend: ray is optional

        return RayPool(plan, env, spare=spare)

    # ---- sessions' side -------------------------------------------------------------
    def submit(self, spec: RunSpec, target: str | None = None, reuse: bool = True) -> str:
        """Queue a job on its device's lane (or the lane named by `target`), or join the
        queued/running one with the identical spec and target. `reuse` False: the job
        measures everything, taking nothing from an earlier stored run (lend)."""
        job_id = self._queue(spec, target, reuse)
        for lane in self.lanes:  # outside the lock: killing a spare's start takes a moment
            lane.pool.give_way()
        return job_id

    def _queue(self, spec: RunSpec, target: str | None, reuse: bool) -> str:
        with self.lock:
            for job in self._jobs.values():
                same = (job.spec, job.target, job.may_reuse) == (spec, target, reuse)
                if job.state in ACTIVE and same:
                    self._jobs[job.id] = replace(job, joined=job.joined + 1)
                    return job.id
            job_id = uuid.uuid4().hex[:12]
            job = Job(
                id=job_id, spec=spec, submitted_at=time.time(), target=target, may_reuse=reuse
            )
            self._jobs[job_id] = job
            load = {lane.name: lane.load for lane in self.lanes}
            try:
                plan = devices.route(spec.device, [lane.plan for lane in self.lanes], load, target)
            except RouteError as exc:
                self._finish(job_id, state="refused", error=str(exc))
                return job_id
            lane = next(lane for lane in self.lanes if lane.plan is plan)
            self._jobs[job_id] = replace(job, lane=lane.name)
            lane.enqueue(job_id)
            self.lock.notify_all()
            return job_id

    def last_done(self, spec: RunSpec, target: str | None = None) -> Job | None:
        """This server's newest stored, done job with this spec and target: Run again offers it."""
        with self.lock:
            done = [j for j in self._jobs.values() if j.state == "done" and j.run_id is not None]
            return next((j for j in reversed(done) if (j.spec, j.target) == (spec, target)), None)

    def get(self, job_id: str) -> Job | None:
        with self.lock:
            job = self._jobs.get(job_id)
            if job is None or job.state != "queued":
                return job
            lane = self._lane(job.lane)
            return replace(job, position=lane.position(job_id)) if lane else job

    def cancel(self, job_id: str) -> bool:
        """Cancel a queued job at once, or a running one by restarting its worker."""
        with self.lock:
            job = self._jobs.get(job_id)
            if job is None or job.finished:
                return False
            if job.state == "queued":
                self._lane(job.lane).withdraw(job_id)
                self._finish(job_id, state="cancelled", error="cancelled before it ran")
            else:
                self._cancel.add(job_id)
            return True

    def wait(self, job_id: str, timeout_s: float | None = None) -> Job:
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        with self.lock:
            while not self._jobs[job_id].finished:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    break
                self.lock.wait(0.2 if left is None else min(left, 0.2))
            return self._jobs[job_id]

    @property
    def env(self) -> dict[str, Any]:
        """This server's environment as its workers report it: every GPU under its index."""
        if self._env_override is not None:
            return self._env_override
        return devices.merged_env([(lane.plan, lane.env) for lane in self.lanes])

    @env.setter
    def env(self, value: dict[str, Any] | None) -> None:
        """What the pages are told the machine is (tests: a GPU without bf16); None: the real."""
        self._env_override = value

    def status(self) -> dict[str, Any]:
        """The first lane's worker (a GPU's when there is one) at the top level, as before
        the pool; every lane under `lanes`."""
        with self.lock:
            lanes = [lane.status() for lane in self.lanes]
            first = lanes[0]
            running = [lane["running"] for lane in lanes if lane["running"]]
            return {
                **{k: first[k] for k in ("worker_state", "worker_pid", "worker_error")},
                "restarts": sum(lane["restarts"] for lane in lanes),
                "replaced": sum(lane["replaced"] for lane in lanes),  # retired after a tool
                "spare_pid": first["spare_pid"],
                "spare_starting": first["spare_starting"],
                "queued": sum(lane["queued"] for lane in lanes),
                "running": running[0] if running else None,
                "timeout_s": self.timeout_s,
                "lanes": lanes,
                "devices_note": self.devices_note,
            }

    def close(self) -> None:
        with self.lock:
            self._stopped = True
            self.lock.notify_all()
        for lane in self.lanes:
            lane.pool.close()
        if self.zygote is not None:
            self.zygote.close()
        for lane in self.lanes:
            if lane.thread.is_alive() and lane.thread is not threading.current_thread():
                lane.thread.join(CLOSE_JOIN_S)
        if self.ray_address == "local":  # the Ray instance this server started for itself
            from runtime_lab.runner import raypool

            raypool.shutdown()

    @property
    def _worker(self) -> WorkerProcess | None:
        """The first lane's worker for the next job (None between a crash and its restart)."""
        return self.lanes[0].pool.current

    # ---- the lanes' side (lane.LaneHost) ----------------------------------------------
    @property
    def stopped(self) -> bool:
        return self._stopped

    def all_idle(self) -> bool:
        return all(lane.running is None for lane in self.lanes)

    def none_timing(self) -> bool:
        """No lane's job is in its timed phase (each idle, or its job past its timing)."""
        with self.lock:
            running = [self._jobs[lane.running] for lane in self.lanes if lane.running]
            return all(job.phase == "evidence" for job in running)

    def spare_starting(self) -> bool:
        return any(lane.pool.starting_spare for lane in self.lanes)

    def take_cancel(self, job_id: str) -> bool:
        with self.lock:
            if job_id in self._cancel:
                self._cancel.discard(job_id)
                return True
            return False

    def lend(self, job_id: str, env: dict[str, Any]) -> dict[str, Any]:
        """What the job may take from an earlier stored run instead of measuring it again
        (its experiment's reuse stage: fusion's compile records), for a worker on `env`; told
        to the worker with the job, and the stored run kept until the job's result is made
        whole from it. {}: nothing to take (no stage, no such run, Measure again)."""
        job = self.get(job_id)
        stage = registry.reuser(job.spec.experiment) if job and job.may_reuse else None
        if stage is None or self.history is None:
            return {}
        try:
            earlier = stage.lender(job.spec, env, self.history)
        except HistoryError:  # history unreadable now: measure everything
            return {}
        if earlier is None:
            return {}
        with self.lock:
            self._lenders[job_id] = (stage, earlier)
        return stage.lent(earlier)

    def _whole(self, job_id: str, result: dict[str, Any] | None) -> dict[str, Any] | None:
        """A result (partial or final) with what its job took from an earlier run filled in,
        so that the run is whole on its own (a bundle exports one run)."""
        lender = self._lenders.get(job_id)
        if lender is None or not result:
            return result
        stage, earlier = lender
        try:
            return stage.merged(result, earlier)
        except (TypeError, ValueError, KeyError, AttributeError):  # never lose the job's own
            return result

    def update(self, job_id: str, **changes: Any) -> Job:
        if changes.get("partial"):  # drawn while the job goes on: whole already
            changes["partial"] = self._whole(job_id, changes["partial"])
        with self.lock:
            job = self._jobs[job_id] = replace(self._jobs[job_id], **changes)
            self.lock.notify_all()
            return job

    def settle(self, job_id: str, lane: Lane, outcome: dict[str, Any]) -> None:
        """A lane's job ended: note the jobs of other lanes it ran alongside (they share the
        host's cores), store it, then mark it finished and the lane free."""
        outcome["worker"] = {**outcome.get("worker", {}), "alongside": self._alongside(job_id)}
        if outcome.get("result"):
            outcome["result"] = self._whole(job_id, outcome["result"])
        recorded = self._record(job_id, outcome)
        with self.lock:
            lane.release()
            self._finish(job_id, **outcome, **recorded)

    def fail_lane(self, lane: Lane, error: str) -> None:
        """A lane's thread died: its running and queued jobs end failed with the reason."""
        with self.lock:
            for job_id in lane.abandon():
                self._finish(job_id, state="failed", error=error, stage="")

    # ---- the manager's own ------------------------------------------------------------
    def _lane(self, name: str | None) -> Lane | None:
        return next((lane for lane in self.lanes if lane.name == name), None)

    def _finish(self, job_id: str, **changes: Any) -> None:
        """Mark finished (caller may hold the lock: it is re-entrant via Condition's RLock)."""
        with self.lock:
            self._jobs[job_id] = replace(self._jobs[job_id], finished_at=time.time(), **changes)
            self._lenders.pop(job_id, None)
            self.lock.notify_all()
            finished = [k for k, j in self._jobs.items() if j.finished]
            for old in finished[: max(0, len(finished) - KEEP_FINISHED)]:
                del self._jobs[old]

    def _alongside(self, job_id: str) -> list[dict[str, Any]]:
        """Jobs of other lanes on the same host whose run overlapped this one's (by the
        dispatchers' clocks): they shared its cores. Another node's jobs shared nothing."""
        with self.lock:
            node = {lane.name: lane.plan.node for lane in self.lanes}
            return alongside(self._jobs[job_id], list(self._jobs.values()), node, time.time())

    def _record(self, job_id: str, outcome: dict[str, Any]) -> dict[str, Any]:
        """Store the finished run before anyone sees it finished. Refused jobs never ran."""
        job = self._jobs[job_id]
        if outcome["state"] == "refused" or self.history is None:
            return {}
        run = replace(
            replace(job, **outcome).as_run(),
            device=outcome.get("device") or job.spec.device,
            env=job.env or self.env,  # node, host, lane and GPU of its worker: in env and worker
            # the worker's own start and end where it reported them (its monotonic clock is
            # the host's, so one offset turns both into wall time), else the dispatcher's
            started_at=wall(outcome.get("worker_started")) or job.started_at,
            finished_at=wall(outcome.get("worker_finished")) or time.time(),
        )
        try:
            return {"run_id": self.history.add(run)}
        except HistoryError as exc:
            return {"history_error": str(exc)}
