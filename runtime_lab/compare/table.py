"""A comparison's key figures: flattened by path, named and in units by the glossary, one row each."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from runtime_lab.glossary import registry as glossary
from runtime_lab.glossary import units
from runtime_lab.glossary.ratio import words as ratio_words


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


def figure_label(experiment: str, key: str) -> str:
    """The glossary's words for a figure ("inductor steady-state time"), else its path's."""
    return glossary.label(experiment, key)


def unit(experiment: str, key: str) -> str | None:
    """The glossary's unit of a figure, else the one its path names ("free_lag_us")."""
    return glossary.unit(experiment, key)


def figure_table(long: pd.DataFrame, labels: Sequence[str]) -> pd.DataFrame:
    """The figures for reading: one row per figure, each run's value (the row in one unit),
    then per run after the baseline its ratio to it in words and the noise verdict."""
    base = labels[0]
    if long.empty:
        return pd.DataFrame(columns=["figure", *labels])
    rows = []
    for _, group in long.groupby("key", sort=False):
        by_run = group.set_index("run")
        row = {"figure": group["figure"].iloc[0]}
        kind = _none(group["unit"].iloc[0])
        better = group["better"].iloc[0] if "better" in group else "neither"
        values = {name: _none(by_run.loc[name, "value"]) for name in labels}
        within = units.scale(kind, values.values())
        row |= {name: units.show(kind, value, within) for name, value in values.items()}
        for name in labels[1:]:
            row[f"{name} ÷ {base}"] = ratio_words(_none(by_run.loc[name, "ratio"]), kind, better)
            row[f"{name} noise"] = by_run.loc[name, "verdict"]
        rows.append(row)
    return pd.DataFrame(rows)


BETTER, WORSE = "better", "worse"


def judgement(ratio: float | None, better: str) -> str:
    """Whether a ratio to the baseline is better or worse by the glossary's direction; "" where
    the figure has none (an input, a name) or nothing changed."""
    if ratio is None or ratio != ratio or ratio == 1 or better not in ("higher", "lower"):
        return ""
    return BETTER if (ratio > 1) == (better == "higher") else WORSE


def judgements(long: pd.DataFrame, labels: Sequence[str]) -> pd.DataFrame:
    """Beside figure_table: per figure row and run after the baseline ("{run} noise"), whether
    its change is better or worse; what colours a "beyond noise" verdict."""
    columns = [f"{name} noise" for name in labels[1:]]
    rows = []
    for _, group in long.groupby("key", sort=False):
        by_run = group.set_index("run")
        better = group["better"].iloc[0] if "better" in group else "neither"
        rows.append(
            {f"{n} noise": judgement(_none(by_run.loc[n, "ratio"]), better) for n in labels[1:]}
        )
    return pd.DataFrame(rows, columns=columns)


def _none(value: Any) -> Any:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value
