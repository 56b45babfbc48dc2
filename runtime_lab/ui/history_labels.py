"""History's run labels: what tells the listed runs apart, each run's figure read once."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from runtime_lab import registry
from runtime_lab.compare import labels
from runtime_lab.store.history import History

FIGURED_RUNS = 60  # the newest runs whose headline figure the label quotes (each reads its result)
# (history, id, finished_at) → figure: a stored run does not change
_FIGURES: dict[tuple[str, Any, Any], str] = {}
_LOCK = threading.Lock()


def _figure(history: History, row: dict[str, Any]) -> str:
    key = (str(history.path), row["id"], row.get("finished_at"))
    with _LOCK:
        if key in _FIGURES:
            return _FIGURES[key]
    text = ""
    if row.get("status") == "done":
        try:
            run = history.get(row["id"])
            summary = registry.summary(run) if run is not None else None
            text = labels.headline_figure(str(row.get("experiment")), summary)
        except Exception:  # a stored run that does not read: its label says what it can
            text = ""
    with _LOCK:
        _FIGURES[key] = text
    return text


def run_labels(history: History, rows: Sequence[dict[str, Any]]) -> dict[Any, str]:
    """Run id → label: the experiment, the workload, the shape, each spec field that differs
    among the listed runs of its experiment, the headline figure of the newest FIGURED_RUNS
    runs, and a status other than done."""
    shown = [
        {**row, "figure": _figure(history, row) if i < FIGURED_RUNS else ""}
        for i, row in enumerate(rows)
    ]
    return labels.labels(shown)
