"""Derived streams figures (no torch), computed once per run: the CLI's keys and the report's."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from runtime_lab.results import Stats, stats
from runtime_lab.streams.result import OverlapCase, StreamsResult, VariantResult, harness, op_timing


@dataclass(frozen=True)
class OverlapFigures:
    """One overlap case: the medians of one stream and of two, and the wall gain between."""

    one_stream_ms: float | None
    two_streams_ms: float | None
    wall_gain_pct: float | None


@dataclass(frozen=True)
class StreamsFigures:
    """Every figure of one streams run; the tuples follow the result's own lists, in order."""

    worst_abs_diff: tuple[float, ...]  # per variant: its trials' largest |diff| (0 without)
    host_us: tuple[Stats | None, ...]  # per host-blocking call: its samples' spread
    overlap: tuple[OverlapFigures, ...]  # per overlap case
    event_ms: Stats | None  # the matmul timed by hand with Event.elapsed_time
    harness_ms: Stats | None  # the same matmul under the lab harness (device time)
    summary: Mapping[str, Any]  # the headline numbers under the names the CLI JSON promises


def primary(result: StreamsResult) -> VariantResult | None:
    """The variant the user named first: the CLI's top-level figures are its figures."""
    return result.variants[0] if result.variants else None


def _median(values) -> float | None:
    s = stats(values)
    return s.median if s else None


def _overlap(case: OverlapCase) -> OverlapFigures:
    serial, concurrent = _median(case.serial_ms), _median(case.concurrent_ms)
    gain = 100.0 * (serial - concurrent) / serial if serial and concurrent else None
    return OverlapFigures(serial, concurrent, gain)


def _harness(result: StreamsResult) -> Stats | None:
    found = harness(result)
    return stats(found.device_ms) if found else None


def figures(result: StreamsResult) -> StreamsFigures:
    worst = tuple(max(v.diffs, default=0.0) for v in result.variants)
    host = tuple(stats(b.host_us) for b in result.host_blocking)
    event = stats(result.event_ms)
    summary = _summary(result, worst, host, event)
    return StreamsFigures(
        worst_abs_diff=worst,
        host_us=host,
        overlap=tuple(_overlap(c) for c in result.overlap),
        event_ms=event,
        harness_ms=_harness(result),
        summary=MappingProxyType(summary),
    )


def key_figures(result: StreamsResult) -> dict[str, Any]:
    """The CLI JSON's headline numbers (the registry's figures stage)."""
    return dict(figures(result).summary)


def _lanes(variant: VariantResult | None) -> list[str]:
    if variant is None or variant.timeline is None:
        return []
    seen = dict.fromkeys(k.lane for k in variant.timeline.kernels)
    return list(seen)


def _summary(result: StreamsResult, worst, host, event) -> dict[str, Any]:
    first = primary(result)
    found = {
        # without variants (CPU) the figures are the correctness branch's single comparison
        "variant": first.variant if first else None,
        "max_abs_diff": worst[0] if first else result.max_abs_diff,
        "mismatches": first.mismatches if first else int(not result.tolerance_passed),
        "trials": first.trials if first else 1,
        "lanes": _lanes(first),
        "overlap_pct": {c.label: c.overlap_pct for c in result.overlap},
        "variants": {
            v.variant: {
                "mismatches": v.mismatches,
                "trials": v.trials,
                "max_abs_diff": diff,
                "reused_block": v.reused_block,
                "lanes": _lanes(v),
            }
            for v, diff in zip(result.variants, worst, strict=True)
        },
        "streams_supported": result.streams_supported,
        "delay_ms": result.delay_ms,
        "event_elapsed_ms_median": event.median if event else None,
        "host_us_median": {
            b.call: s.median if s else None for b, s in zip(result.host_blocking, host, strict=True)
        },
    }
    hidden = [c for c in result.overlap if c.hidden_dependency]
    if hidden:  # runs from before the case have no such key (their summary stays as it was)
        found["overlap_hidden_dependency_pct"] = hidden[0].overlap_pct
    if result.workload:  # recorded since the catalog: which op the side stream ran, its time
        timed = op_timing(result)
        found["workload"] = result.workload
        found["op_ms_median"] = stats(timed.primary_ms).median if timed else None
    return found
