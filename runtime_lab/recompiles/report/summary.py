"""Recompiles' Summary tab: each mode's graphs beside its recompiles, the compile-time chart."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from runtime_lab.report import Report, Summary
from runtime_lab.view.summary import MAX_FIGURES, summary_of

CHART_STARTS = ("Compile time per call, by mode", "Recompile limit")


def paths(key: Mapping[str, Any]) -> list[tuple[str, ...]]:
    """Per mode, in the run's order: (graphs, recompiles), as many modes as fit on one screen."""
    modes = list(key.get("unique_graphs") or {})[: MAX_FIGURES // 2]
    return [(f"unique_graphs.{m}", f"recompiles.{m}") for m in modes]


def summary(report: Report, key: Mapping[str, Any]) -> Summary:
    titles = [t for t, _ in report.charts]
    return summary_of(
        "recompiles", key, paths(key), titles, CHART_STARTS, report.notes, report.warnings
    )
