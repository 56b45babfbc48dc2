"""Which workload each compared run ran: renamed options and runs from before the catalog too."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runtime_lab.record import Run
from runtime_lab.registry import EXPERIMENTS
from runtime_lab.view.code import workload_code
from runtime_lab.workloads.fit import params_of, params_text
from runtime_lab.workloads.registry import WORKLOADS


def _option(experiment: str, kind: str) -> str | None:
    info = EXPERIMENTS.get(experiment)
    return info.option_of(kind) if info else None


def normalised(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec with its options under today's names, and the workload it ran filled in: a run
    from before the catalog ran the option's default (fusion's "pointwise", the seed function),
    and one that named it under an older option ("variant") ran the one it named; a run from
    before the pass option ran the forward alone (fwd)."""
    experiment = spec.get("experiment")
    name = _option(experiment, "workload")
    if name is None:
        return spec
    info = EXPERIMENTS[experiment]
    options = dict(spec.get("options") or {})
    for old, new in info.renamed.items():
        if old in options and new not in options:
            options[new] = options.pop(old)
    options.setdefault(name, info.options[name].default)
    if "pass" in info.options:  # a run stored before the training step's pass timed the forward
        options.setdefault("pass", info.options["pass"].default)
    params = _option(experiment, "params")
    if params is not None:
        options.setdefault(params, "")  # none given: the workload's own defaults
    return {**spec, "options": dict(sorted(options.items()))}


def workload(run: Run) -> tuple[str, str] | None:
    """(workload, its parameters as run) of a run; None for an experiment without workloads."""
    spec = normalised(run.spec)
    name = _option(spec.get("experiment"), "workload")
    if name is None:
        return None
    chosen = str(spec["options"][name])
    given = str(spec["options"].get(_option(spec["experiment"], "params") or "", "") or "")
    info = WORKLOADS.get(chosen)
    try:  # the defaults filled in, so "" and the defaults spelled out read as the same
        return chosen, params_text(
            info.param_defaults() | params_of(info, given)
        ) if info else given
    except ValueError:  # a stored value the catalog no longer takes: as it was recorded
        return chosen, given


def line(runs: Sequence[Run], labels: Sequence[str]) -> str:
    """One line when the runs ran different workloads, or one workload with different
    parameters; "" when they ran the same (or the experiment has no workloads)."""
    found = [workload(r) for r in runs]
    if any(w is None for w in found):
        return ""
    names = [w[0] for w in found]
    if len(set(names)) > 1:
        each = ", ".join(f"{lab} ran {n}" for lab, n in zip(labels, names, strict=True))
        return (
            f"Different workloads: {each}. Their figures measure different functions: a ratio "
            "says how the workloads differ, not how the runs' conditions changed."
        )
    params = [w[1] or "its defaults" for w in found]
    if len(set(params)) > 1:
        each = ", ".join(f"{lab} {p}" for lab, p in zip(labels, params, strict=True))
        return f"Same workload ({names[0]}), different parameters: {each}."
    return _code_line(runs, labels, names[0])


def _code_line(runs: Sequence[Run], labels: Sequence[str], name: str) -> str:
    """A user's workload: one line when the runs ran different code under one name."""
    shas = [(workload_code(r) or {}).get("sha256") for r in runs]
    if not any(shas) or len(set(shas)) == 1:
        return ""
    each = ", ".join(
        f"{lab} {sha[:12] if sha else 'no recorded code'}"
        for lab, sha in zip(labels, shas, strict=True)
    )
    return (
        f"Same workload name ({name}), different code: sha256 {each}. The file changed between "
        "the runs: a difference below may be the code's, not the conditions'."
    )
