"""Warm re-run latency through the real queue and worker: submit -> result -> report built."""

from __future__ import annotations

import statistics
import time
from typing import Any

from benchmarks.harness import Bench
from benchmarks.recipe import Recipe, Settings, fusion_modes, shape, some_of, whole
from runtime_lab import registry
from runtime_lab.spec import build_spec


def measure(bench: Bench, settings: Settings) -> dict[str, Any]:
    options: dict[str, Any] = {"compile_latency": False}
    if settings.items("modes"):
        options["modes"] = ",".join(settings.items("modes"))
    spec = build_spec("fusion", settings.text("shape"), device=bench.device, options=options)
    rows, last = [], None
    for attempt in range(settings.whole("attempts")):
        finished = bench.run(spec)
        built = time.perf_counter()
        registry.build_report(finished.run)  # what a page does with the result before drawing
        report_s = time.perf_counter() - built
        rows.append(
            {
                "attempt": "first" if attempt == 0 else f"warm re-run {attempt}",
                "state": finished.job.state,
                "submit_to_result_s": finished.wall_s,
                "report_s": report_s,
                "total_s": finished.wall_s + report_s,
            }
        )
        last = finished
    bench.show(f"the same spec, {len(rows)} times: {spec.label}", rows)
    warm = [row["total_s"] for row in rows[1:]]
    steady = (last.figures or {}).get("steady_state_ms", {}) if last else {}
    if steady:
        bench.show("the last run's steady state", [{"mode": m, "ms": v} for m, v in steady.items()])
    return {
        "first_total_s": rows[0]["total_s"] if rows else None,
        "warm_total_s": statistics.median(warm) if warm else None,
        "warm_report_s": statistics.median(r["report_s"] for r in rows[1:]) if warm else None,
        "steady_state_ms": steady,
    }


RECIPE = Recipe(
    name="rerun-latency",
    summary="one fusion spec run again and again: the first compiles, then warm re-run latency",
    measure=measure,
    settings={
        "shape": shape("4096x4096", "the fusion run's shape"),
        "modes": some_of("", "fusion modes", fusion_modes(), "empty: the experiment's default"),
        "attempts": whole("3", "runs of the same spec (the first one compiles)", 1, 50),
    },
    replaces="scripts/rerun_latency.py",
)
