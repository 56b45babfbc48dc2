"""A comparison's key figures: flattened by path, named, in units, one row per figure to read."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from runtime_lab.view.fmt import fmt_ms


def flatten(figures: dict[str, Any] | None, prefix: str = "") -> dict[str, float]:
    """The numeric leaves of key_figures, keyed by their path ("steady_state_ms.inductor")."""
    found: dict[str, float] = {}
    for key, value in (figures or {}).items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            found |= flatten(value, f"{name}.")
        elif _number(value):
            found[name] = float(value)
    return found


def _number(value: Any) -> bool:
    """A figure worth a ratio: a finite int or float, not a flag (bool is an int)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def figure_label(key: str, labels: dict[str, Any]) -> str:
    """The experiment's words for a figure ("inductor steady-state time"), else its path: a
    label is a template for the rest of the path ("{} steady-state time") or a function of it."""
    top, _, rest = key.partition(".")
    words = labels.get(top)
    if callable(words):
        return words(rest)
    if words:
        return words.format(rest) if "{}" in words else words
    words = top.replace("_", " ")
    return f"{rest.replace('.', ' · ')} {words}" if rest else words


_UNITS = {"ms": "ms", "us": "us", "s": "s", "bytes": "bytes", "gbps": "gbps", "pct": "pct"}


def unit(key: str) -> str | None:
    """The unit a figure's path names, innermost first ("free_lag_us", "steady_state_ms.x")."""
    for part in reversed(key.split(".")):
        tokens = [t for t in part.split("_") if t in _UNITS]
        if tokens:
            return tokens[-1]
    return None


def show(kind: str | None, value: float | None) -> str:
    """A figure as people read it, in its unit."""
    if value is None:
        return "—"
    if kind in ("ms", "us", "s"):
        ms = value * {"ms": 1, "us": 1e-3, "s": 1e3}[kind]
        return f"{ms / 1e3:.3g} s" if abs(ms) >= 1e3 else fmt_ms(ms)
    if kind == "bytes":
        return f"{value / 2**30:,.2f} GiB" if abs(value) >= 2**30 else f"{value / 2**20:,.1f} MiB"
    if kind == "gbps":
        return f"{value:,.1f} GB/s"
    if kind == "pct":
        return f"{value:.1f} %"
    return f"{value:.4g}"


def times(ratio: float | None) -> str:
    if ratio is None or math.isnan(ratio):
        return "—"
    return f"{ratio:.3g}×"


def figure_table(long: pd.DataFrame, labels: Sequence[str]) -> pd.DataFrame:
    """The figures for reading: one row per figure, each run's value, then per run after the
    baseline its ratio to it and the noise verdict."""
    base = labels[0]
    if long.empty:
        return pd.DataFrame(columns=["figure", *labels])
    rows = []
    for _, group in long.groupby("key", sort=False):
        by_run = group.set_index("run")
        row = {"figure": group["figure"].iloc[0]}
        kind = _none(group["unit"].iloc[0])
        row |= {name: show(kind, _none(by_run.loc[name, "value"])) for name in labels}
        for name in labels[1:]:
            row[f"{name} ÷ {base}"] = times(_none(by_run.loc[name, "ratio"]))
            row[f"{name} noise"] = by_run.loc[name, "verdict"]
        rows.append(row)
    return pd.DataFrame(rows)


def _none(value: Any) -> Any:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value
