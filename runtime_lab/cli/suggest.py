"""`run EXPERIMENT --apply-suggestion RUN_ID`: a stored run's spec again, its suggested fix applied."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from runtime_lab import config, registry
from runtime_lab.record import Run
from runtime_lab.spec import RunSpec, SpecError

FLAG = "--apply-suggestion"


class SuggestError(ValueError):
    """Why there is nothing to apply, as one line."""


@dataclass(frozen=True)
class Plan:
    """The stored run, its suggestion, and the spec that applies it."""

    before: Run
    suggestion: Any  # the experiment's suggest stage's Suggestion
    spec: RunSpec


def add_argument(sub: argparse.ArgumentParser, experiment: str) -> None:
    """The flag, on the `run` subcommands of experiments that have a suggest stage."""
    if registry.suggester(experiment) is None:
        return
    sub.add_argument(
        FLAG,
        metavar="RUN_ID",
        help="run stored run RUN_ID's spec again with the fix its report suggests applied (a "
        "recompile caused by a changing size: mark_dynamic on an input axis of every dim the "
        "sequence varies, all in one run, though Dynamo's guard names only the first; one no "
        "mark fixes, such as a dtype change: stance eager_on_recompile); the other spec flags "
        "are not read. Prints each mode's unique graphs before and after, and the marks each "
        "run ran",
    )


def plan(args: argparse.Namespace) -> Plan:
    """The stored run's spec with its suggestion applied; SuggestError says why there is none."""
    from runtime_lab.store.history import History  # sqlite only when it is used

    text = str(args.apply_suggestion).strip()
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise SuggestError(f"{FLAG}: {text[:20]!r} is not a run id; allowed: a whole number from 1")
    run_id = int(text)
    path = config.data_dir(args.data_dir, create=False) / "history.sqlite3"
    before = History(path, readonly=True).get(run_id) if path.exists() else None
    if before is None:
        raise SuggestError(f"{FLAG}: no run #{run_id} in history")
    experiment = before.spec.get("experiment")
    if experiment != args.experiment:
        raise SuggestError(f"{FLAG}: run #{run_id} is {experiment}, not {args.experiment}")
    stage = registry.suggester(args.experiment)
    result = registry.load(before) if before.status == "done" else None
    found = stage.for_run(before.spec, result) if result is not None else None
    if found is None:
        raise SuggestError(
            f"{FLAG}: run #{run_id} has no recompile that a mark or a stance would fix "
            "(nothing to apply)"
        )
    try:
        spec = RunSpec.from_dict(stage.applied(before.spec, found))
    except SpecError as exc:
        raise SuggestError(f"{FLAG}: run #{run_id}'s spec no longer validates: {exc}") from exc
    return Plan(before, found, spec)


def document(found: Plan, after: Run) -> dict[str, Any]:
    """What --json adds under `apply_suggestion`: the fix, the marks and stance the new run ran
    with (`applied`: its resolved marks), graphs before and after."""
    stage = registry.suggester(found.spec.experiment)
    result = registry.load(after) if after.status == "done" else None
    s = found.suggestion
    return {
        "from_run": found.before.id,
        "mode": s.mode,
        "call": s.call,
        "reason": s.reason,
        "fix": s.fix,
        "mark_dynamic": s.mark_dynamic,
        "stance": s.stance or None,
        "applied": getattr(result, "mark_dynamic", None),
        "applied_stance": getattr(result, "stance", None),
        "unique_graphs": {
            "before": stage.unique_graphs(registry.load(found.before)),
            "after": stage.unique_graphs(result) if result is not None else None,
        },
    }


def lines(found: Plan, after: Run) -> list[str]:
    """The suggestion and each mode's unique graphs, before → after."""
    stage = registry.suggester(found.spec.experiment)
    out = [f"  suggestion applied: {found.suggestion.explanation}"]
    if after.status != "done":
        return out
    before, result = registry.load(found.before), registry.load(after)
    shown = "; ".join(f"{mode} {a} → {b}" for mode, a, b in stage.before_after(before, result))
    names = (f"run #{found.before.id}", f"run #{after.id}" if after.id else "the new run")
    label = f"{names[0]} → {names[1]}" if after.id else names[0]
    said = stage.marks_line(before, result, names)  # a marked dynamic=False is not static
    return [*out, f"  unique graphs, {label}: {shown}", *([f"  {said}"] if said else [])]
