"""One device's FIFO queue and the dispatcher thread that feeds its worker, one job at a time."""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Any, Protocol

from runtime_lab.runner import devices
from runtime_lab.runner.devices import LanePlan
from runtime_lab.runner.job import Job
from runtime_lab.runner.process import WorkerDied


class LaneHost(Protocol):
    """What a lane asks of the manager that owns it (runner/jobs.py JobManager): the job table
    and where a finished job goes. Declared here because jobs imports lane, not back."""

    lock: threading.Condition  # guards the job table and every lane's queue; lanes wait on it
    timeout_s: float  # a job running longer is killed

    @property
    def stopped(self) -> bool:
        """The manager closed: lanes take no more jobs."""
        ...

    def get(self, job_id: str) -> Job | None: ...

    def update(self, job_id: str, **changes: Any) -> Job:
        """Replace fields of a job (progress, env, its start); waiters are woken."""
        ...

    def take_cancel(self, job_id: str) -> bool:
        """Whether a session asked to cancel this running job (asked once, answered once)."""
        ...

    def spare_starting(self) -> bool:
        """A lane is starting a warm spare now: no job may start while it does."""
        ...

    def all_idle(self) -> bool:
        """No lane runs a job: a spare may start without competing with one's timing."""
        ...

    def none_timing(self) -> bool:
        """No lane's job is in its timed phase: a spare may start during an evidence phase."""
        ...

    def lend(self, job_id: str, env: dict[str, Any]) -> dict[str, Any]:
        """What the job may take from an earlier stored run, for its worker on `env`
        (the worker's fingerprint); {}: nothing, it measures everything."""
        ...

    def settle(self, job_id: str, lane: Lane, outcome: dict[str, Any]) -> None:
        """The lane's job ended with these fields: store it, mark it finished, free the lane."""
        ...

    def fail_lane(self, lane: Lane, error: str) -> None:
        """The lane's thread died: its running and queued jobs end failed with the reason."""
        ...


class Lane:
    """A worker slot (a GPU, or a CPU worker): its own queue, pool (worker + warm spare),
    state and restarts. Jobs on one lane never overlap; lanes run side by side."""

    def __init__(self, host: LaneHost, plan: LanePlan, pool: Any, eager: bool = True):
        self.host, self.plan, self.pool = host, plan, pool
        self.eager = eager  # start the worker at once (the server), or with its first job (CLI)
        self._queue: deque[str] = deque()  # job ids, FIFO: changed only through the methods below
        self.state = "starting" if eager else "not started"
        self.error: str | None = None
        self.restarts = 0
        self.env: dict[str, Any] = {}
        self._running: str | None = None  # the job id it runs now
        self.spare_due = True  # one spare attempt after each job (a failing start is not retried)
        self.spare_during_evidence = False  # and the next worker started meanwhile
        self.thread = threading.Thread(
            target=self._serve, name=f"runtime-lab-{plan.name}", daemon=True
        )

    @property
    def name(self) -> str:
        return self.plan.name

    @property
    def running(self) -> str | None:
        """The id of the job it runs now, if any."""
        return self._running

    @property
    def load(self) -> int:
        return len(self._queue) + (self._running is not None)

    # ---- its jobs, as the manager changes them (under the manager's lock) --------------
    def enqueue(self, job_id: str) -> None:
        """Queue a job behind the others; the caller wakes the dispatcher."""
        self._queue.append(job_id)

    def position(self, job_id: str) -> int:
        """A queued job's place: 1 runs next."""
        return self._queue.index(job_id) + 1

    def withdraw(self, job_id: str) -> None:
        """Take a queued job off the queue before it runs (it was cancelled)."""
        self._queue.remove(job_id)

    def release(self) -> None:
        """Its running job is settled: the lane takes the next one."""
        self._running = None

    def abandon(self) -> list[str]:
        """Empty the lane (its thread died): the ids of its running job, then its queued ones."""
        ids = ([self._running] if self._running else []) + list(self._queue)
        self._queue.clear()
        self._running = None
        return ids

    def status(self) -> dict[str, Any]:
        """Called under the manager's lock."""
        running = self.host.get(self.running) if self.running else None
        worker = self.pool.current
        return {
            "lane": self.name,
            "kind": self.plan.kind,
            "device_type": self.plan.device_type or _gpu_name(self.env),
            "node": self.plan.node,
            "host": self.plan.host or self.env.get("hostname"),
            "worker_state": self.state,
            "worker_pid": worker.pid if worker else None,
            "worker_error": self.error,
            "restarts": self.restarts,
            "replaced": self.pool.replaced,
            "spare_pid": self.pool.spare.pid if self.pool.spare else None,
            "spare_starting": self.pool.starting_spare,
            "queued": len(self._queue),
            "running": running.spec.label if running else None,
        }

    # ---- dispatcher thread ----------------------------------------------------------
    def ensure_worker(self) -> Any:
        if self.pool.current is not None and self.pool.current.alive():
            return self.pool.current
        self.state = "starting"
        try:
            worker = self.pool.ensure()  # the warm spare when there is one
        except (WorkerDied, OSError) as exc:
            self.state, self.error = "failed to start", str(exc)
            return None
        self.env = {**worker.env, "lane": self.name}
        self.error, self.state = None, "idle"
        with self.host.lock:  # sessions waiting on the lane's state see it now
            self.host.lock.notify_all()
        return worker

    def _next(self) -> Job | None:
        """Wait for this lane's next job (None once the manager closes). A warm spare starts
        only while no lane runs a job, and no job starts while a spare starts (its start-up
        would compete with any job's timing for the host's cores) unless the job kills it."""
        lock, host = self.host.lock, self.host
        with lock:
            while not host.stopped:
                if self._queue and not host.spare_starting():
                    job_id = self._queue.popleft()
                    self._running = job_id
                    return host.update(
                        job_id, state="running", started_at=time.time(), stage="starting"
                    )
                if (
                    not self._queue
                    and self.spare_due
                    and host.all_idle()
                    and self.pool.wants_spare()
                ):
                    self.spare_due = False
                    # said before the lock goes: another lane must not start a job meanwhile
                    self.pool.starting_spare = True
                    lock.release()
                    try:
                        self.pool.start_spare(yields=True)  # a job queued meanwhile kills it
                    finally:
                        self.pool.starting_spare = False  # also when it returned at once
                        lock.acquire()
                        lock.notify_all()
                    continue
                lock.wait()
            return None

    def _serve(self) -> None:
        """The lane's thread. A bug in it must not leave jobs queued for ever: its jobs fail
        with the reason, the sidebar shows it, and the other lanes go on."""
        try:
            self._loop()
        except Exception as exc:
            if not self.host.stopped:
                self.state = "failed"
                self.error = f"the {self.name} dispatcher stopped: {type(exc).__name__}: {exc}"
                self.host.fail_lane(self, self.error)

    def _loop(self) -> None:
        if self.eager:
            self.ensure_worker()
        while True:
            job = self._next()
            if job is None:
                return
            outcome = self._run(job)
            self.host.settle(job.id, self, outcome)
            self.spare_due = True
            disturbed = (outcome.get("worker") or {}).get("disturbed_by")
            if disturbed and self.pool.current is not None and not self.host.stopped:
                self.pool.retire(disturbed)  # the next job must not time in this process
            if self.pool.current is None and not self.host.stopped:
                self.ensure_worker()  # the spare or a restart now, so the next job finds it ready

    def _run(self, job: Job) -> dict[str, Any]:
        """Send the job to the worker and wait for its outcome; returns the final fields."""
        worker = self.ensure_worker()
        if worker is None:
            return {"state": "failed", "error": f"the worker could not start: {self.error}"}
        self.state = "busy"
        record = {**self.pool.sent(), "lane": self.name}
        if self.plan.node:
            record.update(node=self.plan.node, host=self.plan.host)
        self.host.update(job.id, env=self.env, worker=record, phase="timing")
        self.spare_during_evidence = False
        spec = job.spec
        data = {**spec.to_dict(), "device": devices.worker_device(spec.device, self.plan)}
        # looked up now, not when queued: the worker's machine is known, and a job that ran
        # ahead of this one in the queue is in history
        reuse = self.host.lend(job.id, self.env)
        try:
            worker.send({"op": "run", "job_id": job.id, "spec": data, "reuse": reuse})
            outcome = self._pump(job.id, worker)
        except WorkerDied as exc:
            outcome = self._drop_worker(
                "failed", f"{exc} while running this job; the worker was restarted"
            )
        finally:
            if self.state == "busy":
                self.state = "idle"
        disturbed = outcome.pop("disturbed", None) or []
        outcome["device"] = devices.recorded_device(outcome.get("device"), self.plan)
        # provenance: the evidence phase (profiler figures) shared the host with a starting spare
        early = {"spare_started_during_evidence": self.spare_during_evidence}
        # a user workload's file, sha256 and source; the worker's timeline (where the seconds went)
        for name in ("workload_code", "stages"):
            early |= {name: found} if (found := outcome.pop(name, None)) else {}
        return {**outcome, "worker": {**record, "disturbed_by": disturbed, **early}}

    def _pump(self, job_id: str, worker: Any) -> dict[str, Any]:
        deadline = time.monotonic() + self.host.timeout_s
        while True:
            if self.host.take_cancel(job_id):
                return self._drop_worker(
                    "cancelled", "cancelled while running; the worker was restarted"
                )
            if time.monotonic() > deadline:
                error = (
                    f"timed out after {self.host.timeout_s:g} s; "
                    "the worker was killed and restarted"
                )
                return self._drop_worker("failed", error)
            if self.host.stopped:
                return self._drop_worker("cancelled", "the lab closed while this job ran")
            message = worker.receive(0.1)
            if message is None:
                continue
            if message.get("op") == "progress":
                self.host.update(
                    job_id, stage=message["stage"], done=message["done"], total=message["total"]
                )
            elif message.get("op") == "phase":  # "headline": drawable; "evidence": untimed
                self.host.update(job_id, phase=message["phase"], partial=message.get("partial"))
                if message["phase"] == "evidence":  # nothing this job does from now on is timed
                    self.spare_during_evidence = self._start_spare_early()
            elif message.get("op") == "result":
                started, finished = self._stamps(message)
                return {
                    "state": message["status"],
                    "result": message.get("result"),
                    "error": message.get("error"),
                    "device": message.get("device"),
                    "stage": "",
                    "worker_started": started,
                    "worker_finished": finished,
                    "memory_after": message.get("memory_after"),
                    "process_probe": message.get("process_probe"),
                    "disturbed": message.get("disturbed") or [],
                    "workload_code": message.get("workload_code"),
                    "stages": message.get("stages"),
                }

    def _start_spare_early(self) -> bool:
        """The job's timing is over: start the next worker now, in the background, so that it
        is warm when this one is retired after its profiler session. Only while no lane times
        anything (the others idle or past their timing too); no job starts until it is up."""
        host = self.host
        with host.lock:
            if host.stopped or not self.pool.wants_spare() or not host.none_timing():
                return False
            self.pool.starting_spare = True  # said under the lock: no lane starts a job now

        def start() -> None:
            try:
                self.pool.start_spare()
            finally:
                with host.lock:
                    self.pool.starting_spare = False
                    host.lock.notify_all()

        self.pool.spare_thread = threading.Thread(
            target=start, name=f"runtime-lab-{self.name}-spare", daemon=True
        )
        self.pool.spare_thread.start()
        return True

    def _stamps(self, message: dict[str, Any]) -> tuple[float | None, float | None]:
        """The worker's start and end on this host's monotonic clock. A node's monotonic clock
        is its own: its wall-clock stamps (NTP-synced, ms apart at worst) are mapped instead."""
        if self.plan.local:
            return message.get("started_mono"), message.get("finished_mono")
        offset = time.time() - time.monotonic()
        wall = (message.get("started_at"), message.get("finished_at"))
        return tuple(None if w is None else w - offset for w in wall)  # type: ignore[return-value]

    def _drop_worker(self, state: str, error: str) -> dict[str, Any]:
        self.pool.drop()
        self.state = "restarting"
        self.restarts += 1
        return {"state": state, "error": error, "stage": ""}


def _gpu_name(env: dict[str, Any]) -> str:
    gpus = env.get("gpus") or []
    return gpus[0]["name"] if gpus else ("cpu" if env else "")
