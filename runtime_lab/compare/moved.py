"""What moved since an earlier run: the spec fields that changed, and the headline figure's move."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from runtime_lab import registry
from runtime_lab.compare import labels
from runtime_lab.glossary.ratio import words as ratio_words

SHOWN_FIELDS = 4  # the line names this many changed fields, then counts the rest
SHOWN_FIGURES = 3  # a headline key with a `*` (graphs per mode): this many of its figures


@dataclass(frozen=True)
class Move:
    """One headline figure in both runs: its words, values as the report reads them, verdict."""

    figure: str
    before: str
    after: str
    change: str  # "1.2× higher", "1×": the ratio in the glossary's words
    verdict: str  # comparison.WITHIN, BEYOND, NO_SPREAD or MISSING


@dataclass(frozen=True)
class Moved:
    """A run against the earlier one it follows: changed fields (field, old, new) and moves."""

    before_id: int
    after_id: int
    changed: tuple[tuple[str, str, str], ...]
    moves: tuple[Move, ...]

    def text(self) -> str:
        """One line: "Since run #6: repeat 50 → 100 · measured speed-up 1.6× → 1.9×: 1.2×
        higher (better), within noise"."""
        return f"Since run #{self.before_id}: {self.fields_text()} · {self.moves_text()}"

    def fields_text(self) -> str:
        if not self.changed:
            return "the same spec"
        named = [f"{f} {old} → {new}" for f, old, new in self.changed[:SHOWN_FIELDS]]
        rest = len(self.changed) - len(named)
        return ", ".join(named) + (f" and {rest} more field{'s' * (rest > 1)}" if rest else "")

    def moves_text(self) -> str:
        if not self.moves:
            return "no headline figure in both runs"
        return " · ".join(
            f"{m.figure} {m.before} → {m.after}: {m.change}, {m.verdict}"
            for m in self.moves[:SHOWN_FIGURES]
        )


def changed_fields(before: dict[str, Any], after: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The spec fields whose values differ (field, old, new), the workload first."""
    old, new = labels.spec_fields(before), labels.spec_fields(after)
    found = []
    work = labels.workload_text(before), labels.workload_text(after)
    if work[0] != work[1]:
        found.append(("workload", str(work[0]), str(work[1])))
    for name in dict.fromkeys((*old, *new)):
        if old.get(name, "—") != new.get(name, "—"):
            found.append((name, old.get(name, "—"), new.get(name, "—")))
    return found


def moves(long: pd.DataFrame, experiment: str, ids: Sequence[str]) -> list[Move]:
    """The headline figure's rows of a comparison's long form (comparison.figures) from run
    ids[0] to ids[1], as moves."""
    keys = registry.headline_keys(experiment)
    if long.empty:  # a failed run: no figures
        return []
    rows = long[long["key"].map(lambda k: any(labels.matches(experiment, key, k) for key in keys))]
    found = []
    for key in dict.fromkeys(rows["key"]):
        pair = rows[rows["key"] == key].set_index("run")
        if not all(i in pair.index for i in ids) or pair.loc[list(ids), "value"].isna().any():
            continue
        base, now = (pair.loc[i] for i in ids)
        found.append(
            Move(
                figure=str(now["figure"]),
                before=labels.figure_value(experiment, key, base["value"]),
                after=labels.figure_value(experiment, key, now["value"]),
                change=ratio_words(now["ratio"], _text(now["unit"]), _text(now["better"])),
                verdict=str(now["verdict"]),
            )
        )
    return found


def _text(value: Any) -> str:
    return value if isinstance(value, str) else "neither"


def comparable(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """Whether a run's line may follow an earlier one: one experiment and workload (a moved
    figure of another function is no move)."""
    return before.get("experiment") == after.get("experiment") and labels.workload_text(
        before
    ) == labels.workload_text(after)
