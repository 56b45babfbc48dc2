"""A job as sessions see it: a frozen snapshot of its state, and its shape as a stored run."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from runtime_lab.record import Run
from runtime_lab.spec import RunSpec

ACTIVE = ("queued", "running")
FINISHED = ("done", "failed", "cancelled", "refused")


@dataclass(frozen=True)
class Job:
    """A snapshot of one job, as sessions see it."""

    id: str
    spec: RunSpec
    state: str = "queued"  # queued | running | done | failed | cancelled | refused
    stage: str = ""
    done: int | None = None
    total: int | None = None
    position: int | None = None  # 1 = next to run
    submitted_at: float = 0.0
    started_at: float | None = None
    finished_at: float | None = None
    device: str | None = None
    result: dict[str, Any] | None = None
    error: str | None = None
    env: dict[str, Any] | None = None
    run_id: int | None = None
    history_error: str | None = None
    joined: int = 1
    # when the worker itself began and ended the job (time.monotonic() in the worker, one clock
    # for the whole host): jobs never overlap; None when the worker died before it could say
    worker_started: float | None = None
    worker_finished: float | None = None
    memory_after: dict[str, int] | None = None  # what the worker still held after the job
    process_probe: dict[str, Any] | None = None  # job-start probe vs the worker's baseline
    worker: dict[str, Any] | None = None  # which worker ran it (pid, jobs before, fresh?)
    target: str | None = None  # the lane asked for by name (None: routed by the spec's device)
    lane: str | None = None  # the lane it was queued on (`cuda:1`, `cpu`, `ray:host/gpu:0`)
    # "timing" while figures are measured, "evidence" once they are all in (profiler, traces);
    # `partial` is the result as of that boundary: shown while the job goes on, never stored
    phase: str = ""
    partial: dict[str, Any] | None = None
    # False: measure everything, take nothing from an earlier stored run (Measure again);
    # True: the experiment's reuse stage may lend it figures (registry.reuser)
    may_reuse: bool = True

    @property
    def finished(self) -> bool:
        return self.state in FINISHED

    def as_run(self) -> Run:
        """The job as a run record, as history stores it and the CLI and pages show it: the
        one place a job's fields get the record's names."""
        return Run(
            id=self.run_id,
            status=self.state,
            spec=self.spec.to_dict(),
            env=self.env,
            device=self.device,
            result=self.result,
            error=self.error,
            created_at=self.submitted_at,
            started_at=self.started_at,
            finished_at=self.finished_at,
            process_probe=self.process_probe,
            worker=self.worker,
            job_id=self.id,
            experiment=self.spec.experiment,
            label=self.spec.label,
        )


def wall(monotonic: float | None) -> float | None:
    """A time.monotonic() reading (from any process on this host) as time.time()."""
    return None if monotonic is None else monotonic + (time.time() - time.monotonic())


def alongside(me: Job, jobs: list[Job], node: dict[str, Any], end: float) -> list[dict[str, Any]]:
    """The jobs of other lanes on `me`'s node (lane name -> node) whose run overlapped it
    until `end`: they shared its cores."""
    start = me.started_at or 0.0
    return [
        {"job_id": j.id, "lane": j.lane, "label": j.spec.label}
        for j in jobs
        if j.id != me.id
        and j.lane != me.lane
        and node.get(j.lane) == node.get(me.lane)
        and j.started_at is not None
        and j.started_at < end
        and (j.finished_at is None or j.finished_at > start)
    ]
