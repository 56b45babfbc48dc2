"""A replay pool for the page tests that only draw results: the real JobManager, lanes, pool and
history, with each worker process replaced by one that answers a job at once from a recorded CPU
run of its experiment (tests/fixtures/legacy), so no process starts and nothing is timed."""

from __future__ import annotations

import os
import queue
import time
from typing import Any

import comparedata

from runtime_lab.runner import pool
from runtime_lab.runner.process import WorkerDied

# the legacy fixture's CPU run of each experiment; selftest's recorded run is a failed one
RECORDED_IDS = {
    "fusion": comparedata.CPU_FUSION,
    "streams": comparedata.CPU_STREAMS,
    "recompiles": comparedata.CPU_RECOMPILES,
    "allocator": comparedata.CPU_ALLOCATOR,
}


def recorded() -> dict[str, dict[str, Any]]:
    """Experiment name -> its recorded CPU run, as History.get gives it."""
    runs = comparedata.legacy_runs()
    return {name: runs[run_id] for name, run_id in RECORDED_IDS.items()}


class ReplayWorker:
    """What a lane asks of runtime_lab.runner.process.WorkerProcess (start, send, receive,
    alive, kill, stop and the hello's env), answering each job from `runs` instead of running it."""

    runs: dict[str, dict[str, Any]] = {}  # set by install(): experiment -> recorded run

    def __init__(self, extra_env: dict[str, str] | None = None, zygote: Any = None):
        self.extra_env = dict(extra_env or {})
        self.forked = False  # the server's zygote is never asked: no process starts here
        self.env: dict[str, Any] = {}
        self.pid: int | None = None
        self.baseline_probe: dict[str, Any] | None = None
        self.ready_mono: float | None = None
        self.answers: queue.Queue[dict[str, Any]] = queue.Queue()
        self.running = False

    def start(self, timeout_s: float = 0.0) -> None:
        self.env = dict(self.runs["streams"]["env"])  # the machine the runs were recorded on
        self.pid = os.getpid()  # no process of its own: this one answers
        self.ready_mono = time.monotonic()
        self.running = True

    def send(self, message: dict[str, Any]) -> None:
        if not self.running:
            raise WorkerDied("the worker was stopped")
        if message.get("op") == "run":
            self.answers.put(self.answer(message["job_id"], message["spec"]))

    def answer(self, job_id: str, spec: dict[str, Any]) -> dict[str, Any]:
        """The result message a worker sends, with the recorded run's outcome."""
        mono, now = time.monotonic(), time.time()
        outcome = {"status": "done", "error": None, "device": "cpu"}
        run = self.runs.get(spec["experiment"])
        if run is None:  # selftest: what a quick "ok" self-test in this process gives
            behaviour = (spec.get("options") or {}).get("behaviour", "ok")
            outcome["result"] = {"behaviour": behaviour, "slept_s": 0.0, "pid": self.pid}
        else:
            outcome.update(status=run["status"], error=run["error"], result=run["result"])
        return {
            "op": "result",
            "job_id": job_id,
            **outcome,
            "started_at": now,
            "started_mono": mono,
            "finished_at": now,
            "finished_mono": mono,
            "process_probe": None,
            "disturbed": [],
            "memory_after": {"rss_bytes": 0},
        }

    def receive(self, timeout_s: float) -> dict[str, Any] | None:
        if not self.running:
            raise WorkerDied("the worker was stopped")
        try:
            return self.answers.get(timeout=timeout_s)
        except queue.Empty:
            return None

    def exit_reason(self) -> str:
        return "the replay worker was stopped"

    def alive(self) -> bool:
        return self.running

    def kill(self) -> None:
        self.running = False

    def stop(self) -> None:
        self.running = False


def install(monkeypatch) -> None:
    """Every worker a pool starts from now on (this test) is a ReplayWorker."""
    monkeypatch.setattr(ReplayWorker, "runs", recorded())
    monkeypatch.setattr(pool, "WorkerProcess", ReplayWorker)
