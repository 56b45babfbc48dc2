"""Run labels that tell listed runs apart: the experiment, the workload, what differs, a figure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from runtime_lab import registry
from runtime_lab.compare import table as compare_table
from runtime_lab.compare import workloads
from runtime_lab.glossary import registry as glossary
from runtime_lab.glossary.figure import WILDCARD
from runtime_lab.view.summary import value_text

SHOWN_MATCHES = 3  # a headline key with a `*` ("unique_graphs.*"): this many names, then "…"


def spec_fields(spec: Mapping[str, Any]) -> dict[str, str]:
    """A stored spec as field → value text, options under today's names (old runs too); the
    workload and its parameters are left to workload_text."""
    spec = workloads.normalised(dict(spec))
    experiment = spec.get("experiment")
    info = registry.EXPERIMENTS.get(experiment)
    skip = {info.option_of("workload"), info.option_of("params")} if info else set()
    found = {
        "shape": "x".join(str(d) for d in spec.get("shape") or ()),
        "dtype": str(spec.get("dtype")),
        "device": str(spec.get("device")),
        "warmup": str(spec.get("warmup")),
        "repeat": str(spec.get("repeat")),
        "l2_flush": str(spec.get("l2_flush")),
        "seed": str(spec.get("seed")),
    }
    options = spec.get("options") or {}
    found |= {k: str(v) for k, v in options.items() if k not in skip}
    return found


def workload_text(spec: Mapping[str, Any]) -> str | None:
    """'rms_norm' or 'rms_norm hidden=4096' as the run ran it; None without a workload."""
    info = registry.EXPERIMENTS.get(spec.get("experiment"))
    if info is None or info.option_of("workload") is None:
        return None
    spec = workloads.normalised(dict(spec))
    options = spec.get("options") or {}
    name = str(options.get(info.option_of("workload")))
    params = str(options.get(info.option_of("params") or "", "") or "")
    return f"{name} {params}".strip()


def headline_figure(experiment: str, key_figures: Mapping[str, Any] | None) -> str:
    """The experiment's headline figure (its glossary's HEADLINE keys) as label and value,
    e.g. "measured speed-up (eager ÷ compiled) 1.82×"; "" where the run has none."""
    values = compare_table.flatten(dict(key_figures or {}))
    for key in registry.headline_keys(experiment):
        found = [path for path in values if matches(experiment, key, path)]
        if not found:
            continue
        if found[0] == key:
            path = key
            return (
                f"{glossary.label(experiment, path)} {figure_value(experiment, path, values[path])}"
            )
        figure = glossary.find(experiment, found[0])
        name = figure.label.replace("{}", "").strip() if figure else key
        each = [f"{_name(figure, p)} {figure_value(experiment, p, values[p])}" for p in found]
        more = " · …" if len(each) > SHOWN_MATCHES else ""
        return f"{name}: {' · '.join(each[:SHOWN_MATCHES])}{more}"
    return ""


def matches(experiment: str, key: str, path: str) -> bool:
    """`path` is the headline key itself, or one of the figures a `*` key stands for."""
    if path == key:
        return True
    figure = glossary.find(experiment, path)
    return WILDCARD in key and figure is not None and figure.key == key


def _name(figure, path: str) -> str:
    names = figure.names(path) if figure else None
    return " ".join(names) if names else path


def figure_value(experiment: str, path: str, value: float) -> str:
    if glossary.unit(experiment, path) == "count":
        return f"{value:,.0f}"
    return value_text(experiment, path, value)


def labels(rows: Sequence[Mapping[str, Any]]) -> dict[Any, str]:
    """Run id → its label among `rows` (each: id, experiment, spec, and optionally `status`
    and `figure`, its headline figure): the experiment, the workload, the shape, every other
    spec field whose value is not the same in every listed run of its experiment (as
    field=value), the figure, then a status other than done ("cancelled")."""
    by_experiment: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        by_experiment.setdefault(str(row.get("experiment")), []).append(row)
    found: dict[Any, str] = {}
    for group in by_experiment.values():
        fields = [spec_fields(r.get("spec") or {}) for r in group]
        differ = [
            name
            for name in dict.fromkeys(n for f in fields for n in f)
            if name != "shape" and len({f.get(name, "—") for f in fields}) > 1
        ]
        for row, values in zip(group, fields, strict=True):
            parts = [str(row.get("experiment") or ""), workload_text(row.get("spec") or {})]
            parts += [values.get("shape"), *(f"{n}={values.get(n, '—')}" for n in differ)]
            parts += [row.get("figure") or "", _status(row), _given(row, values)]
            found[row["id"]] = " · ".join(p for p in parts if p)
    return found


def _status(row: Mapping[str, Any]) -> str:
    """A status other than done, as stored ("failed", "cancelled"): such a run has no figures
    to compare, and looks like a done one otherwise. "" for done, or a row without one."""
    status = str(row.get("status") or "")
    return "" if status == "done" else " ".join(status.split())  # on one line


def _given(row: Mapping[str, Any], values: Mapping[str, str]) -> str:
    """A stored label someone gave the run (a bundle's, a benchmark's), quoted; "" where it is
    the spec's own (RunSpec.label: "fusion 256x256 float32 cpu …", which the fields above say
    better)."""
    stored = str(row.get("label") or "")
    spec = row.get("spec") or {}
    options = " ".join(f"{k}={v}" for k, v in (spec.get("options") or {}).items())
    own = f"{row.get('experiment')} {values.get('shape')} {spec.get('dtype')} {spec.get('device')}"
    return "" if not stored or stored == f"{own} {options}".strip() else f"“{stored}”"
