"""One harness for every recipe: a JobManager on a temporary data dir, results read via the registry."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.table import render
from runtime_lab import registry
from runtime_lab.record import Run
from runtime_lab.runner.job import Job
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import RunSpec

JOB_TIMEOUT_S = 900.0  # the largest recipes (32768² with every clock) take minutes per job
READY_TIMEOUT_S = 300.0
ENV_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class Finished:
    """One job as a recipe reads it: the job, its stored-run shape, and what the registry makes
    of it (the typed result and the CLI JSON's headline figures; None unless it is done)."""

    job: Job
    wall_s: float  # submit to finished, as the harness saw it (queueing included)
    run: Run
    result: Any
    figures: dict[str, Any] | None

    @property
    def done(self) -> bool:
        return self.job.state == "done"

    @property
    def run_s(self) -> float | None:
        """From the lane taking the job to its end: queueing excluded, a worker it had to
        start for the job included."""
        job = self.job
        return None if job.started_at is None else (job.finished_at or 0.0) - job.started_at

    def document(self) -> dict[str, Any]:
        """The run as the CLI's --json writes it: its document, with the headline figures."""
        extra = {} if self.figures is None else {"summary": self.figures}
        return {**self.run.document(), **extra}

    def headline(self) -> dict[str, Any]:
        """What the JSON keeps of a run: its label, state, times and headline figures."""
        return {
            "label": self.job.spec.label,
            "state": self.job.state,
            "error": self.job.error,
            "lane": self.job.lane,
            "wall_s": self.wall_s,
            "run_s": self.run_s,
            "summary": self.figures,
        }


class Bench:
    """What a recipe measures with: a lab started on first use (so a recipe can run clean
    reference processes before any worker shares the machine), and what it has printed."""

    def __init__(self, device: str, spare: bool = True, timeout_s: float = JOB_TIMEOUT_S):
        self.device = device  # "cpu" or "cuda": the recipe's resolved --device
        self.spare = spare
        self.timeout_s = timeout_s
        self._scratch = tempfile.TemporaryDirectory(
            prefix="benchmarks-", ignore_cleanup_errors=True
        )
        self.data_dir = Path(self._scratch.name) / "lab"
        self.tables: dict[str, list[dict[str, Any]]] = {}
        self.notes: list[str] = []
        self.problems: list[str] = []
        self.finished: list[Finished] = []
        self._jobs: JobManager | None = None
        self._submitted: dict[str, float] = {}

    # ---- the lab ------------------------------------------------------------------------
    @property
    def jobs(self) -> JobManager:
        """The JobManager, started on first use (with a warm spare per lane unless told not)."""
        if self._jobs is None:
            self._jobs = JobManager(
                data_dir=self.data_dir, timeout_s=self.timeout_s, spare=self.spare
            )
        return self._jobs

    def submit(self, spec: RunSpec, target: str | None = None) -> str:
        # stamped before the submit: a lane can take the job before submit() returns, and a
        # stamp after it made wall_s shorter than the job's own run_s (seen once in CI's tier)
        submitted = time.perf_counter()
        job_id = self.jobs.submit(spec, target=target)
        self._submitted[job_id] = submitted
        return job_id

    def wait(self, job_id: str, expect_done: bool = True) -> Finished:
        """The finished job read through the registry; one that did not end done is a problem
        of the recipe's run (exit 1) unless it was expected to fail."""
        job = self.jobs.wait(job_id, self.timeout_s)
        wall_s = time.perf_counter() - self._submitted[job_id]
        run = job.as_run()
        result = registry.load(run)  # rebuilt once, passed on
        figures = registry.summary(run, result) if result is not None else None
        done = job.state == "done"
        finished = Finished(job=job, wall_s=wall_s, run=run, result=result, figures=figures)
        self.finished.append(finished)
        if expect_done and not done:
            self.problem(f"{job.spec.label}: {job.state}: {job.error}")
        return finished

    def run(self, spec: RunSpec, target: str | None = None) -> Finished:
        return self.wait(self.submit(spec, target))

    def wait_ready(self, every_lane: bool = False, timeout_s: float = READY_TIMEOUT_S) -> None:
        """Until the workers have said what machine they are on (every lane's, if asked)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            lanes = self.lanes()
            # a spare still starting would share the cores with the first job's timing
            idle = [lane["worker_state"] == "idle" and not lane["spare_starting"] for lane in lanes]
            if all(idle) if every_lane else (self.jobs.env and any(idle)):
                return
            time.sleep(0.5)
        self.problem(f"the workers were not ready after {timeout_s:.0f} s: {self.lanes()}")

    def lanes(self) -> list[dict[str, Any]]:
        """Each lane's status (name, kind, worker state and pid, restarts, ...)."""
        return self.jobs.status()["lanes"]

    def fingerprint(self) -> dict[str, Any]:
        """Where the figures came from: the workers' environment when the lab ran, else the
        CLI's `env` in a child process (the harness itself never imports torch)."""
        if self._jobs is not None and self._jobs.env:
            return self._jobs.env
        done = subprocess.run(
            [sys.executable, "-m", "runtime_lab", "env"],
            capture_output=True,
            text=True,
            timeout=ENV_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
        return json.loads(done.stdout) if done.returncode == 0 else {"error": done.stderr[-500:]}

    # ---- what is printed and kept ---------------------------------------------------------
    def show(self, title: str, rows: list[dict[str, Any]]) -> None:
        """Print a table now (long recipes report as they go) and keep it for the JSON."""
        self.tables[title] = rows
        print(render(title, rows), flush=True)

    def note(self, text: str) -> None:
        self.notes.append(text)
        print(text, flush=True)

    def problem(self, text: str) -> None:
        """Something the recipe found wrong: printed, kept, and the run exits 1."""
        self.problems.append(text)
        print(f"problem: {text}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self._jobs is not None:
            self._jobs.close()
            self._jobs = None
        self._scratch.cleanup()

    def __enter__(self) -> Bench:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
