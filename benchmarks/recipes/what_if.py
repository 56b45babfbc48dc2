"""The what-if loop as a user clicks it: a fusion result, then Run again at once (no pause)."""

from __future__ import annotations

import time
from typing import Any

from benchmarks.harness import Bench
from benchmarks.recipe import Recipe, Settings, fusion_modes, shape, some_of, whole
from benchmarks.recipes import worker_start
from runtime_lab import registry
from runtime_lab.options import form_defaults
from runtime_lab.registry import EXPERIMENTS
from runtime_lab.runner.job import Job
from runtime_lab.spec import RunSpec, spec_from_values
from runtime_lab.view import stages

POLL_S = 0.05
# the goal is a new shape at 4096² on the GPU: one of that size the worker has not compiled
NEW_SHAPE = {"cpu": "512x512", "cuda": "4096x3584"}


def _step(bench: Bench, name: str, spec: RunSpec, longest: int) -> dict[str, Any]:
    """Submit, then poll as the page's fragment does: when the headline (the timing phase's
    partial result, or the whole result) is there, and when the full result is."""
    job_id = bench.submit(spec)
    submitted, submitted_wall, submitted_mono = time.perf_counter(), time.time(), time.monotonic()
    headline_s = None
    while True:
        job: Job = bench.jobs.get(job_id)
        if headline_s is None and (getattr(job, "partial", None) is not None or job.finished):
            headline_s = time.perf_counter() - submitted
        if job.finished:
            break
        time.sleep(POLL_S)
    finished = bench.wait(job_id)
    built = time.perf_counter()
    if finished.done:
        registry.build_report(finished.run)  # what the page does before it draws the report
    worker = finished.job.worker or {}
    return {
        "step": name,
        "state": finished.job.state,
        "headline_s": headline_s,
        "full_s": finished.wall_s + (time.perf_counter() - built),
        "waited_for_worker_s": _waited(finished.job),
        # submit -> the worker began it: a spare still starting is waited for here
        "to_worker_s": _to_worker(finished.job, submitted_wall),
        "spare": worker.get("started_as_spare"),
        "jobs_before": worker.get("jobs_before"),
        "pid": worker.get("pid"),
        # the worker's hello against the click: > 0 means the job waited for it to start
        "hello_after_click_s": _after(worker.get("ready_mono"), submitted_mono),
        "early_spare": worker.get("spare_started_during_evidence"),
        **_start_steps(finished.job),
        # the process probe at the job's start against its worker's at hello: inflated or not
        "probe": _probe(finished.job),
        # the worker's timeline, in one line
        "where": stages.time_line(finished.job, longest) or "",
    }


def _short(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k != "where"}


def _after(mono: float | None, submitted_mono: float) -> float | None:
    return None if mono is None else round(mono - submitted_mono, 3)


def _start_steps(job: Job) -> dict[str, Any]:
    """The worker's own start, seconds after the server asked for it: imports (post-fork ones
    when forked), CUDA, the compiler's warm-up, hello."""
    base = (job.process_probe or {}).get("baseline") or {}
    return {step: base.get(step) for step in worker_start.STEPS}


def _probe(job: Job) -> str:
    probe = job.process_probe or {}
    ratios = " ".join(f"{k} {v:.2f}" for k, v in (probe.get("ratios") or {}).items())
    return f"{'flagged' if probe.get('flagged') else 'clean'} ({ratios})" if probe else ""


def _to_worker(job: Job, submitted_wall: float) -> float | None:
    from runtime_lab.runner.job import wall

    started = wall(job.worker_started)
    return None if started is None else round(started - submitted_wall, 3)


def _waited(job: Job) -> float | None:
    """From the lane taking the job to the worker starting it: a worker start it waited for."""
    from runtime_lab.runner.job import wall

    started = wall(job.worker_started)
    return None if started is None or job.started_at is None else started - job.started_at


def measure(bench: Bench, settings: Settings) -> dict[str, Any]:
    bench.wait_ready()
    values = form_defaults(EXPERIMENTS["fusion"], gpu=bench.device == "cuda")
    values = {**values, "device": bench.device}
    for name in ("shape", "modes"):  # empty: the form's default
        if settings.text(name):
            values[name] = settings.text(name)
    first = spec_from_values("fusion", values)
    fewer = spec_from_values("fusion", {**values, "repeat": max(1, int(values["repeat"]) - 10)})
    new_shape = settings.text("new_shape") or NEW_SHAPE[bench.device]
    other = spec_from_values("fusion", {**values, "shape": new_shape})
    steps = [("first run", first), ("same spec again", first)]
    steps += [("fewer timed calls (no new compile)", fewer), ("a new shape", other)]
    longest = settings.whole("longest")
    rows = []
    for name, spec in steps:  # no pause: the user clicks again
        rows.append(_step(bench, name, spec, longest))
        bench.note(f"  {name}: {_short(rows[-1])}")  # as it goes: a run cut short keeps these
    bench.show(f"Run, then Run again at once: {first.label}", [_short(r) for r in rows])
    for row in rows:
        bench.note(f"  {row['step']}: {row['where']}")
    zygote = bench.jobs.zygote
    if zygote is not None:
        why = zygote.broken or zygote.no_forks
        bench.note(f"zygote: {'not forking: ' + why if why else 'in use'}")
    return {row["step"]: {k: row[k] for k in ("headline_s", "full_s", "spare")} for row in rows}


RECIPE = Recipe(
    name="what-if",
    summary="a fusion result, then Run again at once: same spec, fewer calls, a new shape",
    measure=measure,
    settings={
        "shape": shape("", "the first run's shape", "empty: the form's default"),
        "modes": some_of("", "the fusion modes", fusion_modes(), "empty: the form's default"),
        "new_shape": shape(
            "", "the last step's shape, a new compile", "empty: 512x512 on cpu, 4096x3584 on cuda"
        ),
        "longest": whole("3", "how many of each step's longest stages to name", 1, 20),
    },
)
