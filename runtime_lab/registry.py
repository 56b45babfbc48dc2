"""The one list of experiments, and the one place that dispatches on an experiment's name."""

# Each experiment is a package runtime_lab.<name> with the same stage modules: info (catalog
# entry, no torch), run (worker side, imports torch), result (typed result), figures (the CLI
# JSON's headline numbers), report (what its page draws), compare (runs side by side); frames
# and charts where it draws.

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from runtime_lab.options import ExperimentInfo
from runtime_lab.results import from_plain
from runtime_lab.runner import probe as probe_figures

NAMES = (
    "fusion",
    "recompiles",
    "streams",
    "allocator",
    "selftest",
)


def _stage(name: str, stage: str) -> ModuleType:
    if name not in NAMES:  # names reach here from stored runs too: never import a made-up one
        raise KeyError(f"unknown experiment {name!r}; known: {', '.join(NAMES)}")
    return importlib.import_module(f"runtime_lab.{name}.{stage}")


EXPERIMENTS: dict[str, ExperimentInfo] = {name: _stage(name, "info").INFO for name in NAMES}


def visible() -> list[ExperimentInfo]:
    """Experiments shown on pages (diagnostics stay CLI-only)."""
    return [info for info in EXPERIMENTS.values() if not info.hidden]


def run_module(name: str) -> ModuleType:
    """The worker-side module (estimate_bytes, run); it imports torch: only the worker calls this."""
    return _stage(name, "run")


def comparison(name: str) -> ModuleType:
    """The compare stage: figure labels, which figures keep raw samples, the overlaid charts."""
    return _stage(name, "compare")


def result_from_record(experiment: str, data: dict[str, Any] | None) -> Any:
    """The typed result of a stored run, or None if the run has none."""
    if not data:
        return None
    return from_plain(_stage(experiment, "result").RESULT_TYPE, data)


def build_report(run: dict[str, Any]) -> Any:
    """The report for a run dict (keys spec, env, status, result, error, …)."""
    from runtime_lab.report import not_done  # altair and pandas: the worker never needs them

    experiment = run["spec"]["experiment"]
    if run.get("status") != "done":
        return not_done(run)
    result = result_from_record(experiment, run.get("result"))
    # what every experiment shares: a flagged process probe, contended timings, a new worker
    return probe_figures.annotate(_stage(experiment, "report").build(run, result), run)


def summary(run: dict[str, Any]) -> dict[str, Any] | None:
    """Headline figures of a finished run, for the CLI JSON (None where an experiment has none)."""
    experiment = run["spec"]["experiment"]
    if run.get("status") != "done":
        return None
    result = result_from_record(experiment, run["result"])
    return _stage(experiment, "figures").key_figures(result)
