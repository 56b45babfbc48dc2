"""Headline figures of a streams run (no torch): the keys the CLI JSON promises."""

from __future__ import annotations

from typing import Any

from runtime_lab.results import stats
from runtime_lab.streams.result import StreamsResult, VariantResult


def primary(result: StreamsResult) -> VariantResult | None:
    """The variant the user named first: the CLI's top-level figures are its figures."""
    return result.variants[0] if result.variants else None


def _lanes(variant: VariantResult | None) -> list[str]:
    if variant is None or variant.timeline is None:
        return []
    seen = dict.fromkeys(k.lane for k in variant.timeline.kernels)
    return list(seen)


def key_figures(result: StreamsResult) -> dict[str, Any]:
    first = primary(result)
    event, blocking = stats(result.event_ms), {}
    for b in result.host_blocking:
        s = stats(b.host_us)
        blocking[b.call] = s.median if s else None
    found = {
        # without variants (CPU) the figures are the correctness branch's single comparison
        "variant": first.variant if first else None,
        "max_abs_diff": max(first.diffs, default=0.0) if first else result.max_abs_diff,
        "mismatches": first.mismatches if first else int(not result.tolerance_passed),
        "trials": first.trials if first else 1,
        "lanes": _lanes(first),
        "overlap_pct": {c.label: c.overlap_pct for c in result.overlap},
        "variants": {
            v.variant: {
                "mismatches": v.mismatches,
                "trials": v.trials,
                "max_abs_diff": max(v.diffs, default=0.0),
                "reused_block": v.reused_block,
                "lanes": _lanes(v),
            }
            for v in result.variants
        },
        "streams_supported": result.streams_supported,
        "delay_ms": result.delay_ms,
        "event_elapsed_ms_median": event.median if event else None,
        "host_us_median": blocking,
    }
    hidden = [c for c in result.overlap if c.hidden_dependency]
    if hidden:  # runs from before the case have no such key (their summary stays as it was)
        found["overlap_hidden_dependency_pct"] = hidden[0].overlap_pct
    return found
