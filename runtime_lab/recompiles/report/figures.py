"""Derived recompiles figures (no torch), computed once per run: the CLI's keys and the report's."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from runtime_lab.recompiles import cudagraph_calls as cg
from runtime_lab.recompiles.info import RECOMPILE_MODES
from runtime_lab.recompiles.result import CallRecord, RecompilesResult

MODE_ORDER = (*RECOMPILE_MODES, "bucketed", cg.MODE)


@dataclass(frozen=True)
class RecompilesFigures:
    """Every figure of one recompiles run that more than one part of its report reads."""

    order: tuple[str, ...]  # the modes as the page lists them
    first_recompile: Mapping[str, CallRecord]  # per mode that recompiled: its first recompile
    cudagraphs: Mapping[str, int]  # the reduce-overhead what-if's calls per state; {} without
    summary: Mapping[str, Any]  # the headline numbers under the names the CLI JSON promises


def mode_order(result: RecompilesResult) -> list[str]:
    present = [m.mode for m in result.modes]
    return [m for m in MODE_ORDER if m in present] + [m for m in present if m not in MODE_ORDER]


def mode_label(result: RecompilesResult, mode: str, short: bool = False) -> str:
    """The mode named as it ran: the mark_dynamic option marks every mode's inputs, so such a
    dynamic=False is not static shapes: 'dynamic=False + mark_dynamic x:0,y:0' (short:
    'dynamic=False + marks')."""
    if not result.mark_dynamic:
        return mode
    return f"{mode} + marks" if short else f"{mode} + mark_dynamic {result.mark_dynamic}"


def figures(result: RecompilesResult) -> RecompilesFigures:
    first = {
        m.mode: call
        for m in result.modes
        if (call := next((c for c in m.calls if c.event == "recompile"), None))
    }
    graphs = next((m for m in result.modes if m.mode == cg.MODE), None)
    counts = cg.counts(c.cudagraph for c in graphs.calls) if graphs else {}
    return RecompilesFigures(
        order=tuple(mode_order(result)),
        first_recompile=MappingProxyType(first),
        cudagraphs=MappingProxyType(counts),
        summary=MappingProxyType(_summary(result, counts)),
    )


def key_figures(result: RecompilesResult) -> dict[str, Any]:
    """The CLI JSON's headline numbers (the registry's figures stage)."""
    return dict(figures(result).summary)


def _summary(result: RecompilesResult, cudagraphs: dict[str, int]) -> dict[str, Any]:
    """The headline numbers under the names the CLI JSON promises (per mode where it applies)."""
    modes = [m for m in result.modes if not m.error]
    g = result.graph_break
    found = {
        "unique_graphs": {m.mode: m.unique_graphs for m in modes},
        "recompiles": {m.mode: m.recompiles for m in modes},
        "recompile_reasons": {m.mode: [c.reason for c in m.calls if c.reason] for m in modes},
        "compile_s": {m.mode: m.compile_s for m in modes},
        "cache_hits": {m.mode: m.cache_hits for m in modes},
        "graph_breaks": None
        if g is None
        else {
            "variant": g.variant,
            "unique_graphs": g.unique_graphs,
            "graph_breaks": g.graph_breaks,
            "reasons": list(g.reasons),
            "fullgraph_error": (
                f"{g.fullgraph_error_type}: {g.fullgraph_error}" if g.fullgraph_error_type else None
            ),
            "error": g.error,
            "per_mode": {m.mode: m.graph_breaks for m in modes},
        },
        "recompile_limit": {
            m.mode: {
                "limit": m.recompile_limit,
                "compiles": m.compiles,
                "hit": m.limit_hit,
                "state": m.limit_state,
            }
            for m in modes
        },
        "failed_modes": {m.mode: m.error for m in result.modes if m.error},
    }
    # the what-ifs only where they ran: an old run's summary keeps exactly its recorded keys
    if result.workload is not None:
        found["workload"] = result.workload
        found["marked_dims"] = [result.dim_names[d] for d in result.dims]
    if result.stance != "default":
        found["stance"] = {
            "stance": result.stance,
            "eager": {m.mode: m.stance_eager for m in modes if m.stance},
            "failed": {m.mode: m.stance_failed for m in modes if m.stance},
        }
    graphs = [m for m in modes if m.mode == cg.MODE]
    if graphs:
        found["cudagraphs"] = {**cudagraphs, "pool_bytes": graphs[0].pool_bytes}
    return found
