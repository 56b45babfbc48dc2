"""Streams' Summary tab: the orderings' wrong results side by side, overlap, the one chart."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from runtime_lab.report import Report, Summary
from runtime_lab.view.summary import summary_of

# the chart that shows the headline's claim (wrong results per ordering), else the CPU timing
CHART_STARTS = ("Wrong results out of N trials", "Overlap: two streams vs one", "Time per call")


def paths(key: Mapping[str, Any]) -> list[tuple[str, ...]]:
    """The first ordering's wrong results and error; the orderings' wrong results two by two;
    each overlap; the matmul's event timing against the lab's."""
    variants = [f"variants.{v}.mismatches" for v in key.get("variants") or {}]
    overlaps = [f"overlap_pct.{o}" for o in key.get("overlap_pct") or {}]
    found: list[tuple[str, ...]] = [("mismatches", "max_abs_diff")]
    found += [tuple(variants[i : i + 2]) for i in range(0, len(variants), 2)]
    found += [tuple(overlaps[i : i + 2]) for i in range(0, len(overlaps), 2)]
    return [*found, ("event_elapsed_ms_median", "op_ms_median")]


def summary(report: Report, key: Mapping[str, Any]) -> Summary:
    titles = [t for t, _ in report.charts]
    return summary_of(
        "streams", key, paths(key), titles, CHART_STARTS, report.notes, report.warnings
    )
