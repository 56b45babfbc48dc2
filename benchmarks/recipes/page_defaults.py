"""Each page's default Run as a page user meets it: a warm lab with its spare, a pause between Runs."""

from __future__ import annotations

import time
from typing import Any

from benchmarks.harness import Bench
from benchmarks.recipe import Recipe, Settings, number, some_of
from runtime_lab.options import form_defaults
from runtime_lab.registry import EXPERIMENTS
from runtime_lab.spec import spec_from_values


def measure(bench: Bench, settings: Settings) -> dict[str, Any]:
    bench.wait_ready()
    gpus = [gpu["name"] for gpu in bench.jobs.env.get("gpus") or []]
    bench.note(f"worker ready; gpus: {gpus}")
    rows = []
    for name in settings.items("pages"):
        values = form_defaults(EXPERIMENTS[name], gpu=bench.device == "cuda")
        spec = spec_from_values(name, {**values, "device": bench.device})
        time.sleep(settings.number("pause_s"))  # a user reading the last report: the spare starts
        finished = bench.run(spec)
        worker = finished.job.worker or {}
        rows.append(
            {
                "page": name,
                "state": finished.job.state,
                "wait_and_run_s": finished.wall_s,
                "run_s": finished.run_s,
                "catalog_s": EXPERIMENTS[name].default_run_s.get(bench.device),
                "spare": worker.get("started_as_spare"),
                "fresh": worker.get("fresh_after_disturbed"),
            }
        )
    bench.show(f"each page's default Run on {bench.device}", rows)
    return {
        row["page"]: {"wait_and_run_s": row["wait_and_run_s"], "run_s": row["run_s"]}
        for row in rows
    }


RECIPE = Recipe(
    name="page-defaults",
    summary="each page's default Run, timed as a page user meets it (the catalog's default_run_s)",
    measure=measure,
    settings={
        "pages": some_of(
            "fusion,streams,recompiles,allocator",
            "the experiments whose default Run is timed",
            tuple(EXPERIMENTS),
        ),
        "pause_s": number("15", "seconds between Runs: a user reading the last report", 0, 600),
    },
    replaces="scripts/page_defaults.py",
)
