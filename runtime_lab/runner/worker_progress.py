"""The worker's messages while a job runs: throttled progress, the phase change, the timeline."""

from __future__ import annotations

import json
import re
import time
from typing import Any

from runtime_lab.timeline import HEADLINE_MARK

PROGRESS_EVERY_S = 0.1
MAX_STAGES = 300  # a timeline entry per stage change; a sweep of many shapes stops adding here
_COUNTER = re.compile(r"\s*\d+/\d+")  # "eager: timing 3/50" is the stage "eager: timing"


def send(conn, message: dict[str, Any]) -> None:
    # JSON, not pickle: nothing that crosses the pipe is ever executed
    conn.send_bytes(json.dumps(message, default=str).encode())


class Progress:
    """Throttled progress messages: a timing loop may call this thousands of times a second.
    Every change of stage is kept, unthrottled and without its counters, as the job's
    timeline (`worker.stages`): where a job's seconds went, for the page and the benchmarks."""

    def __init__(self, conn, job_id: str, started_mono: float):
        self.conn, self.job_id, self.last = conn, job_id, 0.0
        self.started, self.raw, self.stages = started_mono, "", []

    def mark(self, stage: str) -> None:
        if stage == self.raw:
            return
        self.raw = stage
        key = _COUNTER.sub("", stage).strip()
        if (not self.stages or self.stages[-1]["stage"] != key) and len(self.stages) < MAX_STAGES:
            at = round(time.monotonic() - self.started, 4)
            self.stages.append({"stage": key, "start_s": at})

    def timeline(self, finished_mono: float) -> list[dict[str, Any]]:
        """Each stage with its start and length (to the next stage, or the job's end)."""
        ends = [s["start_s"] for s in self.stages[1:]] + [finished_mono - self.started]
        return [
            {**s, "took_s": round(max(0.0, end - s["start_s"]), 4)}
            for s, end in zip(self.stages, ends, strict=True)
        ]

    def __call__(self, stage: str, done: int | None = None, total: int | None = None) -> None:
        self.mark(stage)
        now = time.monotonic()
        if now - self.last < PROGRESS_EVERY_S and not (done is not None and done == total):
            return
        self.last = now
        send(
            self.conn,
            {"op": "progress", "job_id": self.job_id, "stage": stage, "done": done, "total": total},
        )


class Phase:
    """Says the job's timing phase is over, with the result so far (never stored as a run)."""

    def __init__(self, conn, job_id: str, progress: Progress):
        self.conn, self.job_id, self.progress = conn, job_id, progress

    def __call__(self, phase: str, partial: object) -> None:
        from runtime_lab.results import to_plain

        self.progress.mark(HEADLINE_MARK if phase == "headline" else f"[{phase} phase]")
        message = {"op": "phase", "job_id": self.job_id, "phase": phase}
        send(self.conn, {**message, "partial": to_plain(partial), "at_mono": time.monotonic()})
