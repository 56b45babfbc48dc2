"""Allocator configurations A/B as a frame, a chart and a verdict in numbers (no torch)."""

from __future__ import annotations

import pandas as pd

from runtime_lab.allocator.report import ab_charts
from runtime_lab.allocator.report import outside as outside_frames
from runtime_lab.allocator.result import AllocatorResult

MIB = 2**20
COLUMNS = [
    "config",
    "step",
    "shape",
    "allocated_mib",
    "reserved_mib",
    "slack_mib",
    "segments",
    "largest_free_mib",
    "peak_mib",
    "expandable_segments",
]
WHY = (
    "With expandable segments the allocator maps more physical memory into one growing virtual "
    "range, so blocks of new sizes extend a segment instead of leaving a segment per size "
    "behind; the default allocator rounds each large request into its own fixed segment and "
    "keeps it cached, which is cheapest when the same sizes repeat but strands memory when "
    "they vary (PyTorch's CUDA semantics notes)."
)


def config_frame(result: AllocatorResult) -> pd.DataFrame:
    """One row per configuration and step: reserved − allocated (slack), segments, free block."""
    rows = [
        {
            "config": run.config,
            "step": s.step,
            "shape": "x".join(map(str, s.shape))
            + ("" if s.dtype == result.dtype else f":{s.dtype}"),
            "allocated_mib": s.allocated_bytes / MIB,
            "reserved_mib": s.reserved_bytes / MIB,
            "slack_mib": (s.reserved_bytes - s.allocated_bytes) / MIB,
            "segments": s.segments,
            "largest_free_mib": s.largest_free_bytes / MIB,
            "peak_mib": s.peak_bytes / MIB,
            "expandable_segments": s.expandable_segments,
        }
        for run in result.alloc_configs
        for s in run.steps
    ]
    return pd.DataFrame(rows, columns=COLUMNS)


def verdict(result: AllocatorResult) -> str | None:
    """Which configuration held less memory it was not using, in this run's numbers."""
    runs = {r.config: r for r in result.alloc_configs if r.steps and not r.error}
    default, expandable = runs.get("default"), runs.get("expandable_segments:True")
    if default is None or expandable is None:
        return None

    def worst(run) -> tuple[float, int]:
        slack = max(s.reserved_bytes - s.allocated_bytes for s in run.steps)
        return slack / MIB, max(s.segments for s in run.steps)

    (d_slack, d_segs), (e_slack, e_segs) = worst(default), worst(expandable)
    better = "expandable segments" if e_slack < d_slack else "the default allocator"
    return (
        f"Across these steps the default allocator held up to {d_slack:,.1f} MiB reserved but "
        f"unallocated in up to {d_segs} segments; expandable segments up to {e_slack:,.1f} MiB "
        f"in up to {e_segs}: {better} stranded less here. {WHY}"
    )


def context_frame(result: AllocatorResult) -> pd.DataFrame:
    """Allocations per scenario and compiled graph, from the snapshots' compile context."""
    rows = [
        {"scenario": s.scenario, "compiled graph": name, "allocations": count}
        for s in result.snapshots
        for name, count in s.compile_contexts
    ]
    return pd.DataFrame(rows, columns=["scenario", "compiled graph", "allocations"])


def context_notes(result: AllocatorResult) -> list[str]:
    recorded = [s for s in result.snapshots if s.compile_context_recorded is not None]
    if any(s.compile_context_recorded is False for s in recorded):
        return [
            "Compile context in snapshots needs a torch whose _record_memory_history takes "
            "compile_context (PyTorch PR 152707, 2025); this one does not."
        ]
    compiled = [s for s in recorded if s.scenario in ("compiled", "cudagraphs")]
    if compiled and not any(s.compile_contexts for s in compiled):
        return [
            "The history was recorded with compile_context=True, but no allocation of the "
            "compiled scenarios names a compiled graph."
        ]
    return []


def parts(result: AllocatorResult) -> tuple[list, list, list]:
    """(charts, tables, notes) the report adds: compile context, configurations A/B, memory
    outside the allocator."""
    contexts = context_frame(result)
    tables = (
        [("Allocations by compiled graph (compile context)", contexts)]
        if not contexts.empty
        else []
    )
    notes = context_notes(result)
    charts, ab_tables, ab_notes = _ab_parts(result) if result.alloc_configs else ([], [], [])
    o_charts, o_tables, o_notes = outside_frames.parts(result)
    return charts + o_charts, tables + ab_tables + o_tables, notes + ab_notes + o_notes


def _ab_parts(result: AllocatorResult) -> tuple[list, list, list]:
    frame = config_frame(result)
    notes = [f"Allocator {r.config}: failed: {r.error}" for r in result.alloc_configs if r.error]
    said = verdict(result)
    notes += [said] if said else []
    if frame.empty:
        return [], [], notes
    chart = (
        "Allocator configurations: reserved − allocated per step",
        ab_charts.config_chart(frame),
    )
    table = ("Allocator configurations A/B (a fresh process each)", frame)
    return [chart], [table], notes
