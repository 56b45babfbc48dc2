"""The one list of experiments, and the one place that dispatches on an experiment's name."""

# Each experiment is a package runtime_lab.<name> with two halves and what sits between them:
# info (catalog entry) and result (typed result), both torch-free; run/ (the worker side, under
# torch: run/experiment.py holds estimate_bytes and run); report/ (the server side, no torch:
# report/build.py the Report its page draws; optionally report/figures.py, the CLI JSON's
# headline numbers, report/glossary.py, what each of them is (FIGURES), and report/compare.py,
# runs side by side: a missing one means none).

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from runtime_lab.options import ExperimentInfo
from runtime_lab.record import Run
from runtime_lab.results import from_plain
from runtime_lab.runner import probe as probe_figures

NAMES = (
    "fusion",
    "recompiles",
    "streams",
    "allocator",
    "selftest",
)


# each stage's module within an experiment package
STAGES = {
    "info": "info",
    "result": "result",
    "run": "run.experiment",
    "report": "report.build",
    "figures": "report.figures",
    "glossary": "report.glossary",
    "compare": "report.compare",
    # what to apply to a stored run and run again (recompiles: mark a changing dim dynamic)
    "suggest": "report.suggest",
    # what a job may take from an earlier stored run instead of measuring it again (fusion:
    # the compile records of a run with the same compile inputs)
    "reuse": "report.reuse",
}


def _stage(name: str, stage: str) -> ModuleType:
    if name not in NAMES:  # names reach here from stored runs too: never import a made-up one
        raise KeyError(f"unknown experiment {name!r}; known: {', '.join(NAMES)}")
    return importlib.import_module(f"runtime_lab.{name}.{STAGES[stage]}")


def _optional_stage(name: str, stage: str) -> ModuleType | None:
    """An optional stage (figures, glossary, compare), or None where the experiment has none."""
    if name not in NAMES:
        return _stage(name, stage)  # raises: an unknown name is never looked up either
    if importlib.util.find_spec(f"runtime_lab.{name}.{STAGES[stage]}") is None:
        return None
    return _stage(name, stage)


class NoComparison:
    """The compare stage of an experiment without one: nothing ignored, no raw samples or
    charts (labels and units come from the glossary)."""

    IGNORED: tuple[str, ...] = ()

    @staticmethod
    def samples(result: Any) -> dict[str, tuple[float, ...]]:
        return {}

    @staticmethod
    def charts(results: Any) -> list[tuple[str, Any]]:
        return []


EXPERIMENTS: dict[str, ExperimentInfo] = {name: _stage(name, "info").INFO for name in NAMES}


def visible() -> list[ExperimentInfo]:
    """Experiments shown on pages (diagnostics stay CLI-only)."""
    return [info for info in EXPERIMENTS.values() if not info.hidden]


def run_module(name: str) -> ModuleType:
    """The worker-side module (estimate_bytes, run); it imports torch: only the worker calls this."""
    return _stage(name, "run")


def comparison(name: str) -> Any:
    """The compare stage: which figures it ignores, which keep raw samples, the overlaid charts
    (NoComparison where the experiment has no compare stage)."""
    return _optional_stage(name, "compare") or NoComparison


def suggester(name: str) -> ModuleType | None:
    """The suggest stage (for_run(spec, result) → a suggestion with its explanation, applied(spec,
    suggestion) → the spec to run next, before_after), or None where the experiment has none."""
    return _optional_stage(name, "suggest")


def reuser(name: str) -> ModuleType | None:
    """The reuse stage (lender(spec, env, history) → the stored run a job may take figures
    from, lent(run) → what its worker is told, merged(result, run) → the job's result made
    whole from it), or None where the experiment has none."""
    return _optional_stage(name, "reuse")


def glossary(name: str) -> tuple[Any, ...]:
    """The experiment's figures as its glossary defines them (report/glossary.py's FIGURES:
    glossary.figure.Figure), () where it has no figures."""
    stage = _optional_stage(name, "glossary")
    return tuple(stage.FIGURES) if stage else ()


def headline_keys(name: str) -> tuple[str, ...]:
    """The glossary keys of the experiment's headline figure, first found first (its
    report/glossary.py's HEADLINE): what a History label quotes of a run; () where none."""
    stage = _optional_stage(name, "glossary")
    return tuple(getattr(stage, "HEADLINE", ())) if stage else ()


def result_type(experiment: str) -> type:
    """The dataclass an experiment's stored result is rebuilt into (its RESULT_TYPE)."""
    return _stage(experiment, "result").RESULT_TYPE


def result_from_record(experiment: str, data: dict[str, Any] | None) -> Any:
    """The typed result of a stored run, or None if the run has none."""
    if not data:
        return None
    return from_plain(result_type(experiment), data)


# build_report / summary without a result: they load it themselves (one use, one rebuild)
_LOAD: Any = object()


def load(run: Run | Mapping[str, Any]) -> Any:
    """The typed result of a done run, rebuilt from its stored JSON; None when it has none.
    Rebuild it once per use and pass it on: build_report(run, result=…), summary(…)."""
    run = Run.of(run)
    if run.status != "done":
        return None
    return result_from_record(run.spec["experiment"], run.result)


def build_report(run: Run | Mapping[str, Any], result: Any = _LOAD) -> Any:
    """The report for a run (a Run, or plain data read as one: Run.of)."""
    from runtime_lab.report import not_done  # altair and pandas: the worker never needs them

    run = Run.of(run)
    if run.status != "done":
        return not_done(run)
    result = load(run) if result is _LOAD else result
    # what every experiment shares: a flagged process probe, contended timings, a new worker
    report = _stage(run.spec["experiment"], "report").build(run, result)
    return probe_figures.annotate(report, run)


def summary(run: Run | Mapping[str, Any], result: Any = _LOAD) -> dict[str, Any] | None:
    """Headline figures of a finished run, for the CLI JSON (None where an experiment has none)."""
    run = Run.of(run)
    if run.status != "done":
        return None
    figures = _optional_stage(run.spec["experiment"], "figures")
    if figures is None:  # no headline figures (selftest): the JSON carries the result alone
        return None
    result = load(run) if result is _LOAD else result
    return figures.key_figures(result)
