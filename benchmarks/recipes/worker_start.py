"""What a fresh worker's start costs, step by step, and what its compiler warm-up saves a job."""

from __future__ import annotations

import time
from typing import Any

from benchmarks.harness import Bench
from benchmarks.recipe import Recipe, Settings, shape, whole
from runtime_lab.envvars import PREWARM_ENV
from runtime_lab.options import form_defaults
from runtime_lab.registry import EXPERIMENTS
from runtime_lab.runner.jobs import worker_env
from runtime_lab.runner.process import WorkerProcess
from runtime_lab.runner.worker_progress import HEADLINE_MARK
from runtime_lab.spec import spec_from_values

JOB_WAIT_S = 600.0
STEPS = ("imported_at_s", "cuda_ready_at_s", "prewarm_s", "ready_at_s")


def _job(worker: WorkerProcess, spec_data: dict[str, Any], name: str) -> dict[str, Any]:
    """Run one job on the worker as a lane does; its result message (stages included)."""
    worker.send({"op": "run", "job_id": name, "spec": spec_data})
    deadline = time.monotonic() + JOB_WAIT_S
    while time.monotonic() < deadline:
        message = worker.receive(1.0)
        if message and message.get("op") == "result":
            return message
    raise TimeoutError(f"{name}: no result within {JOB_WAIT_S:g} s")


def _row(bench: Bench, prewarm: bool, spec_data: dict[str, Any], name: str) -> dict[str, Any]:
    # the lab's own workers' environment: its persistent caches, warm after the first start
    env = {**worker_env(bench.data_dir), PREWARM_ENV: "1" if prewarm else "0"}
    worker = WorkerProcess(extra_env=env)
    began = time.perf_counter()
    worker.start()
    hello_s = time.perf_counter() - began
    try:
        result = _job(worker, spec_data, name)
    finally:
        worker.stop()
    base = worker.baseline_probe or {}
    stages = result.get("stages") or []
    first = sum(s["took_s"] for s in stages if s["stage"].endswith(": first call"))
    headline = [s["start_s"] for s in stages if s["stage"] == HEADLINE_MARK]
    return {
        "prewarm": "on" if prewarm else "off",
        "start_to_hello_s": round(hello_s, 2),
        **{step: base.get(step) for step in STEPS},
        "first_calls_s": round(first, 2),  # every mode's first call: its compile, caches warm
        "headline_at_s": headline[0] if headline else None,
        "job_s": stages[-1]["start_s"] + stages[-1]["took_s"] if stages else None,
        "state": result.get("status"),
    }


def measure(bench: Bench, settings: Settings) -> dict[str, Any]:
    values = {**form_defaults(EXPERIMENTS["fusion"], gpu=bench.device == "cuda")}
    values.update(device=bench.device, compile_trace=False, compile_latency=False)
    if settings.text("shape"):
        values["shape"] = settings.text("shape")
    spec = spec_from_values("fusion", values)
    data = {**spec.to_dict(), "device": "cuda:0" if bench.device == "cuda" else "cpu"}
    _row(bench, True, data, "disk caches")  # fills the persistent caches: both arms hit them
    rows = []
    for i in range(settings.whole("rounds")):
        for prewarm in (True, False):  # alternated: drift on the host hits both arms alike
            rows.append(_row(bench, prewarm, data, f"round {i + 1}"))
    bench.show(f"A fresh worker, then one job: {spec.label}", rows)
    by = {arm: [r for r in rows if r["prewarm"] == arm] for arm in ("on", "off")}
    return {
        arm: {k: [r[k] for r in found] for k in ("start_to_hello_s", "first_calls_s", "job_s")}
        for arm, found in by.items()
    }


RECIPE = Recipe(
    name="worker-start",
    summary="a fresh worker's start step by step, with and without the compiler warm-up",
    measure=measure,
    settings={
        "shape": shape("", "the fusion job's shape", "empty: the form's default"),
        "rounds": whole("2", "workers started per arm (warm-up on, off), alternated", 1, 20),
    },
)
