"""One FIFO job queue shared by every session, served by one worker process (one job at a time)."""

from __future__ import annotations

import atexit
import threading
import time
import uuid
from collections import OrderedDict, deque
from dataclasses import replace
from pathlib import Path
from typing import Any

from runtime_lab import config
from runtime_lab.history import History, HistoryError
from runtime_lab.job import ACTIVE, FINISHED, Job, wall
from runtime_lab.spec import RunSpec
from runtime_lab.workerpool import WorkerPool
from runtime_lab.workerproc import WorkerDied, WorkerProcess

__all__ = ["ACTIVE", "FINISHED", "Job", "JobManager"]

KEEP_FINISHED = 500  # finished jobs kept in memory for polling; history keeps them for good


class JobManager:
    """Thread-safe queue + a dispatcher thread that owns the worker and records finished runs."""

    def __init__(
        self,
        data_dir: str | Path | None = None,
        timeout_s: float | None = None,
        start: bool = True,
        spare: bool = True,  # keep a warm spare worker (the CLI, one job, has no use for it)
    ):
        self.data_dir = config.data_dir(data_dir)
        self.timeout_s = timeout_s or config.job_timeout_s()
        self.history_notice: str | None = None
        try:
            self.history: History | None = History(self.data_dir / "history.sqlite3")
            self.history_notice = self.history.notice
        except HistoryError as exc:
            self.history, self.history_notice = None, str(exc)
        self._lock = threading.Condition()
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._queue: deque[str] = deque()
        self._cancel: set[str] = set()
        self._pool = WorkerPool(self._worker_env(), spare=spare)
        self.worker_state = "starting"
        self.worker_error: str | None = None
        self.restarts = 0
        self.env: dict[str, Any] = {}
        self._stopped = False
        self._thread = threading.Thread(
            target=self._serve, name="runtime-lab-dispatch", daemon=True
        )
        if start:
            self._thread.start()
        atexit.register(self.close)

    # ---- sessions' side -------------------------------------------------------------
    def submit(self, spec: RunSpec) -> str:
        """Queue a job, or join the queued/running one with the identical spec."""
        with self._lock:
            for job in self._jobs.values():
                if job.state in ACTIVE and job.spec == spec:
                    self._jobs[job.id] = replace(job, joined=job.joined + 1)
                    return job.id
            job_id = uuid.uuid4().hex[:12]
            self._jobs[job_id] = Job(id=job_id, spec=spec, submitted_at=time.time())
            self._queue.append(job_id)
            self._lock.notify_all()
            return job_id

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None or job.state != "queued":
                return job
            return replace(job, position=self._queue.index(job_id) + 1)

    def cancel(self, job_id: str) -> bool:
        """Cancel a queued job at once, or a running one by restarting the worker."""
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None or job.finished:
                return False
            if job.state == "queued":
                self._queue.remove(job_id)
                self._finish(job_id, state="cancelled", error="cancelled before it ran")
            else:
                self._cancel.add(job_id)
            return True

    def wait(self, job_id: str, timeout_s: float | None = None) -> Job:
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        with self._lock:
            while not self._jobs[job_id].finished:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    break
                self._lock.wait(0.2 if left is None else min(left, 0.2))
            return self._jobs[job_id]

    def status(self) -> dict[str, Any]:
        with self._lock:
            running = [j for j in self._jobs.values() if j.state == "running"]
            return {
                "worker_state": self.worker_state,
                "worker_pid": self._worker.pid if self._worker else None,
                "worker_error": self.worker_error,
                "restarts": self.restarts,
                "replaced": self._pool.replaced,  # retired after a job turned a tool on
                "spare_pid": self._pool.spare.pid if self._pool.spare else None,
                "spare_starting": self._pool.starting_spare,
                "queued": len(self._queue),
                "running": running[0].spec.label if running else None,
                "timeout_s": self.timeout_s,
            }

    def close(self) -> None:
        with self._lock:
            self._stopped = True
            self._lock.notify_all()
        self._pool.close()

    @property
    def _worker(self) -> WorkerProcess | None:
        """The worker that runs the next job (None between a crash and its replacement)."""
        return self._pool.current

    # ---- dispatcher thread ----------------------------------------------------------
    def _update(self, job_id: str, **changes: Any) -> None:
        with self._lock:
            self._jobs[job_id] = replace(self._jobs[job_id], **changes)
            self._lock.notify_all()

    def _finish(self, job_id: str, **changes: Any) -> None:
        """Mark finished (caller may hold the lock: it is re-entrant via Condition's RLock)."""
        with self._lock:
            self._jobs[job_id] = replace(self._jobs[job_id], finished_at=time.time(), **changes)
            self._lock.notify_all()
            finished = [k for k, j in self._jobs.items() if j.finished]
            for old in finished[: max(0, len(finished) - KEEP_FINISHED)]:
                del self._jobs[old]

    def _ensure_worker(self) -> WorkerProcess | None:
        if self._worker is not None and self._worker.alive():
            return self._worker
        self.worker_state = "starting"
        try:
            worker = self._pool.ensure()  # the warm spare when there is one
        except (WorkerDied, OSError) as exc:
            self.worker_state, self.worker_error = "failed to start", str(exc)
            return None
        self.env, self.worker_error = worker.env, None
        self.worker_state = "idle"
        return worker

    def _worker_env(self) -> dict[str, str]:
        # compile caches live in the data directory so a warm cache survives restarts
        return {
            "RUNTIME_LAB_DATA_DIR": str(self.data_dir),
            "TORCHINDUCTOR_CACHE_DIR": str(self.data_dir / "inductor-cache"),
            "TRITON_CACHE_DIR": str(self.data_dir / "triton-cache"),
        }

    def _serve(self) -> None:
        self._ensure_worker()
        while True:
            if not self._queue and not self._stopped:
                # only now, between jobs: its start-up would compete with a job's timing. A job
                # queued meanwhile waits for it (at most one start, and only after a replacement)
                self._pool.start_spare()
            with self._lock:
                while not self._queue and not self._stopped:
                    self._lock.wait()
                if self._stopped:
                    return
                job_id = self._queue.popleft()
                self._jobs[job_id] = replace(
                    self._jobs[job_id], state="running", started_at=time.time(), stage="starting"
                )
            outcome = self._run(job_id)
            self._finish(job_id, **outcome, **self._record(job_id, outcome))
            disturbed = (outcome.get("worker") or {}).get("disturbed_by")
            if disturbed and self._worker is not None and not self._stopped:
                self._pool.retire(disturbed)  # the next job must not time in this process
            if self._worker is None and not self._stopped:
                self._ensure_worker()  # the spare or a restart now, so the next job finds it ready

    def _run(self, job_id: str) -> dict[str, Any]:
        """Send the job to the worker and wait for its outcome; returns the final fields."""
        worker = self._ensure_worker()
        if worker is None:
            return {"state": "failed", "error": f"the worker could not start: {self.worker_error}"}
        self.worker_state = "busy"
        record = self._pool.sent()
        self._update(job_id, env=worker.env, worker=record)
        try:
            worker.send({"op": "run", "job_id": job_id, "spec": self._jobs[job_id].spec.to_dict()})
            outcome = self._pump(job_id, worker)
        except WorkerDied as exc:
            outcome = self._drop_worker(
                "failed", f"{exc} while running this job; the worker was restarted"
            )
        finally:
            if self.worker_state == "busy":
                self.worker_state = "idle"
        disturbed = outcome.pop("disturbed", None) or []
        return {**outcome, "worker": {**record, "disturbed_by": disturbed}}

    def _pump(self, job_id: str, worker: WorkerProcess) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout_s
        while True:
            if job_id in self._cancel:
                self._cancel.discard(job_id)
                return self._drop_worker(
                    "cancelled", "cancelled while running; the worker was restarted"
                )
            if time.monotonic() > deadline:
                error = f"timed out after {self.timeout_s:g} s; the worker was killed and restarted"
                return self._drop_worker("failed", error)
            message = worker.receive(0.1)
            if message is None:
                continue
            if message.get("op") == "progress":
                self._update(
                    job_id, stage=message["stage"], done=message["done"], total=message["total"]
                )
            elif message.get("op") == "result":
                return {
                    "state": message["status"],
                    "result": message.get("result"),
                    "error": message.get("error"),
                    "device": message.get("device"),
                    "stage": "",
                    "worker_started": message.get("started_mono"),
                    "worker_finished": message.get("finished_mono"),
                    "memory_after": message.get("memory_after"),
                    "process_probe": message.get("process_probe"),
                    "disturbed": message.get("disturbed") or [],
                }

    def _drop_worker(self, state: str, error: str) -> dict[str, Any]:
        self._pool.drop()
        self.worker_state = "restarting"
        self.restarts += 1
        return {"state": state, "error": error, "stage": ""}

    def _record(self, job_id: str, outcome: dict[str, Any]) -> dict[str, Any]:
        """Store the finished run before anyone sees it finished. Refused jobs never ran."""
        job = self._jobs[job_id]
        if outcome["state"] == "refused" or self.history is None:
            return {}
        run = {
            "job_id": job.id,
            "experiment": job.spec.experiment,
            "device": outcome.get("device") or job.spec.device,
            "status": outcome["state"],
            "label": job.spec.label,
            "spec": job.spec.to_dict(),
            "env": job.env or self.env,
            "result": outcome.get("result"),
            "error": outcome.get("error"),
            "created_at": job.submitted_at,
            # the worker's own start and end where it reported them (its monotonic clock is
            # the host's, so one offset turns both into wall time), else the dispatcher's
            "started_at": wall(outcome.get("worker_started")) or job.started_at,
            "finished_at": wall(outcome.get("worker_finished")) or time.time(),
            "process_probe": outcome.get("process_probe"),
            "worker": outcome.get("worker"),
        }
        try:
            return {"run_id": self.history.add(run)}
        except HistoryError as exc:
            return {"history_error": str(exc)}
