"""The worker that runs jobs, and a warm spare that takes over when a job has disturbed it."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from runtime_lab.runner.process import WorkerDied, WorkerProcess


def worker_env(data_dir: Path) -> dict[str, str]:
    """What every worker of a data directory gets: compile caches live there, so a warm cache
    survives restarts (and the worker-start benchmark's workers share the lab's)."""
    return {
        "RUNTIME_LAB_DATA_DIR": str(data_dir),
        "TORCHINDUCTOR_CACHE_DIR": str(data_dir / "inductor-cache"),
        "TRITON_CACHE_DIR": str(data_dir / "triton-cache"),
    }


def worker_record(
    worker: Any, jobs_before: int, retired_for: list[str], from_spare: bool
) -> dict[str, Any]:
    """A run's `worker` record: which process ran it, how many jobs it ran before, and whether
    it replaced one that a tool disturbed (local pools and the Ray backend alike)."""
    fresh = jobs_before == 0
    return {
        "pid": worker.pid,
        "jobs_before": jobs_before,
        "fresh_after_disturbed": fresh and bool(retired_for),
        "previous_disturbed_by": list(retired_for) if fresh else [],
        "started_as_spare": from_spare,
        "forked": bool(getattr(worker, "forked", False)),  # from the zygote: imports shared
        "ready_mono": worker.ready_mono,  # its hello, on the server's time.monotonic()
        "disturbed_by": [],
    }


class WorkerPool:
    """At most one worker runs jobs; a spare, started only while no job runs (its start-up
    would compete with a job's timing for CPU and GPU), waits with CUDA initialised."""

    def __init__(self, extra_env: dict[str, str], spare: bool = True, zygote: Any = None):
        self.extra_env = dict(extra_env)
        self.zygote = zygote  # the server's (runner/forked.py): forks workers with torch imported
        self.use_spare = spare
        self.current: WorkerProcess | None = None
        self.spare: WorkerProcess | None = None
        self._starting: WorkerProcess | None = None
        self.closed = False
        self.jobs_run = 0  # jobs the current worker has been sent
        self.replaced = 0  # workers retired because a job disturbed them
        self._retired_for: list[str] = []  # why the current worker's predecessor was retired
        self._from_spare = False
        self.starting_spare = False  # a job queued meanwhile waits for it
        self.spare_thread: threading.Thread | None = None  # a spare started during a job
        self._yields = False  # the spare starting now gives way to a job (give_way)
        self._gave_way = False

    def _start(self) -> WorkerProcess:
        worker = WorkerProcess(extra_env=self.extra_env, zygote=self.zygote)
        self._starting = worker
        try:
            if self._yields and self._gave_way:  # a job came before this process did
                raise WorkerDied("a job came: the spare's start gave way")
            worker.start()
        finally:
            self._starting = None
        if self.closed:
            worker.stop()
            raise WorkerDied("the lab is closing")
        return worker

    def ensure(self) -> WorkerProcess:
        """The worker for the next job: the current one, else the spare, else a new one
        (WorkerDied or OSError when it cannot start)."""
        if self.current is not None and self.current.alive():
            return self.current
        starting = self.spare_thread
        if starting is not None and starting is not threading.current_thread():
            starting.join()  # started while the last job's evidence ran: nearly warm, wait
        spare, self.spare = self.spare, None
        if spare is not None and spare.alive():
            self.current, self._from_spare = spare, True
        else:
            if spare is not None:
                spare.kill()  # died while it waited (OOM killer, say)
            self.current, self._from_spare = None, False
            self.current = self._start()
        self.jobs_run = 0
        return self.current

    def wants_spare(self) -> bool:
        """Whether start_spare() would start one (a lane asks before it gives up its lock)."""
        return (
            self.use_spare
            and not self.closed
            and not self.starting_spare
            and (self.spare is None or not self.spare.alive())
        )

    def start_spare(self, yields: bool = False) -> None:
        """Start the spare now, blocking; the dispatcher calls it only with an empty queue.
        `yields`: a job queued meanwhile kills this start rather than wait for it (give_way)."""
        if not self.use_spare or self.closed or (self.spare is not None and self.spare.alive()):
            return
        self.starting_spare, self._yields, self._gave_way = True, yields, False
        try:
            self.spare = self._start()
        except (WorkerDied, OSError):
            self.spare = None  # the next replacement starts cold, as after a crash
        finally:
            self.starting_spare = self._yields = False

    def give_way(self) -> bool:
        """A job was queued. A spare that started while every lane was idle, and that the job
        does not need (this pool's worker is up), is killed, so the job starts at once with the
        host to itself; the next spare starts in the job's evidence phase (lane.py). On the
        H100 host a user's Run right after a result waited 4.3-5.9 s for such a start."""
        if not self._yields or self.current is None or not self.current.alive():
            return False
        self._gave_way = True
        starting = self._starting
        if starting is not None:
            starting.kill()  # start() then raises WorkerDied in the dispatcher's thread
        return True

    def sent(self) -> dict[str, Any]:
        """Call when a job goes to the current worker: the run's `worker` record."""
        record = worker_record(self.current, self.jobs_run, self._retired_for, self._from_spare)
        self.jobs_run += 1
        return record

    def retire(self, reasons: list[str]) -> None:
        """The current worker ran a job that turned a tool on: kill it (nothing in it is worth
        a polite exit, which took seconds after a profiler session) and reap it, so its exit
        overlaps no timing; the next job goes to a fresh one."""
        if self.current is not None:
            self.current.kill()
        self.current, self._retired_for = None, list(reasons)
        self.replaced += 1

    def drop(self) -> None:
        """The current worker died, hung or was cancelled: kill it."""
        if self.current is not None:
            self.current.kill()
        self.current, self._retired_for = None, []

    def close(self) -> None:
        self.closed = True
        starting = self._starting
        if starting is not None:
            starting.kill()  # its start() in the dispatcher thread then fails and returns
        for worker in (self.current, self.spare):
            if worker is not None:
                worker.stop()
