"""Streams' Summary tab: the orderings' wrong results side by side, overlap, the one chart."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from runtime_lab.glossary import registry as glossary
from runtime_lab.report import Metric, Report, Summary
from runtime_lab.streams.report.headline import error_text
from runtime_lab.view.summary import lookup, summary_of

# the chart that shows the headline's claim (wrong results per ordering), else the CPU timing
CHART_STARTS = ("Wrong results out of N trials", "Overlap: two streams vs one", "Time per call")


def paths(key: Mapping[str, Any]) -> list[tuple[str, ...]]:
    """The first ordering's wrong results and error; the orderings' wrong results two by two;
    each overlap; the matmul's event timing against the lab's. Without streams (CPU) there
    are no orderings: the one check's error beside the op's time."""
    if key.get("streams_supported") is False:
        return [("max_abs_diff", "op_ms_median")]
    variants = [f"variants.{v}.mismatches" for v in key.get("variants") or {}]
    overlaps = [f"overlap_pct.{o}" for o in key.get("overlap_pct") or {}]
    found: list[tuple[str, ...]] = [("mismatches", "max_abs_diff")]
    found += [tuple(variants[i : i + 2]) for i in range(0, len(variants), 2)]
    found += [tuple(overlaps[i : i + 2]) for i in range(0, len(overlaps), 2)]
    return [*found, ("event_elapsed_ms_median", "op_ms_median")]


def _errors(key: Mapping[str, Any], shown: list[tuple[str, ...]]) -> dict[str, str]:
    """Label → plain text of each error figure shown (the shared 'number' format writes 0 as
    0.000e+00)."""
    found = {}
    for path in (p for pair in shown for p in pair):
        value = lookup(key, path)
        if glossary.unit("streams", path) == "number" and isinstance(value, int | float):
            found[glossary.label("streams", path)] = error_text(value)
    return found


def summary(report: Report, key: Mapping[str, Any]) -> Summary:
    titles = [t for t, _ in report.charts]
    shown = paths(key)
    found = summary_of("streams", key, shown, titles, CHART_STARTS, report.notes, report.warnings)
    plain = _errors(key, shown)
    pairs = tuple(
        tuple(Metric(m.label, plain.get(m.label, m.value), m.help) for m in pair)
        for pair in found.pairs
    )
    return replace(found, pairs=pairs)
