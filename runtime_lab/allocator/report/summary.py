"""Allocator's Summary tab: peak against reserved, eager against compiled, the memory curve."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from runtime_lab.allocator.report.headline import host_step
from runtime_lab.report import Report, Summary
from runtime_lab.view.summary import summary_of

CHART_STARTS = ("Over time", "Peaks", "Per step")


def paths(key: Mapping[str, Any]) -> list[tuple[str, ...]]:
    """The sequence's peak beside what stays reserved; the eager call's peak beside the
    compiled one's; what empty_cache gives back; the host's peak beside the OOMs. A CPU run
    (no caching allocator): the headline's step against its ideal, then the host's peak."""
    step = host_step(dict(key))
    if step is not None:
        return [
            (f"host_rss_step_peak_bytes.{step}", f"call_peak_bytes.{step}.ideal"),
            ("host_rss_peak_bytes",),
        ]
    return [
        ("peak_bytes.sequence", "reserved_bytes.sequence"),
        ("compiled.eager_peak_bytes", "compiled.compiled_peak_bytes"),
        ("reserved_after_empty_cache_bytes.empty-cache", "empty_cache_call_ms"),
        ("host_rss_peak_bytes", "num_ooms"),
    ]


def summary(report: Report, key: Mapping[str, Any]) -> Summary:
    titles = [t for t, _ in report.charts]
    return summary_of(
        "allocator", key, paths(key), titles, CHART_STARTS, report.notes, report.warnings
    )
