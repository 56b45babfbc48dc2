"""Allocator results → tidy DataFrames: steps, trace curves, host RSS, snapshots, timings."""

from __future__ import annotations

import pandas as pd

from runtime_lab.results_allocator import AllocatorResult

MIB = 2**20
SERIES = ("reserved", "allocated", "peak")  # drawn in this order: reserved behind the others
TRACE_SERIES = ("reserved", "allocated", "pending free")
STEP_COLUMNS = [
    "scenario",
    "step",
    "label",
    "event",
    "x",
    "t_s",
    "allocated_bytes",
    "reserved_bytes",
    "peak_bytes",
    "inactive_split_bytes",
    "fragmentation_bytes",
    "rss_bytes",
    "step_ms",
]


def _mib(value) -> float | None:
    return None if value is None else value / MIB


def steps_frame(result: AllocatorResult) -> pd.DataFrame:
    """One row per mark: memory_stats (None on CPU), host RSS, the step's time."""
    rows = []
    for order, s in enumerate(result.steps):
        frag = None
        if s.reserved_bytes is not None and s.allocated_bytes is not None:
            frag = s.reserved_bytes - s.allocated_bytes
        rows.append(
            {
                "scenario": s.scenario,
                "step": s.index,
                "label": s.label,
                "event": s.event,
                # the x-axis name: unique and in run order, so repeated shapes stay apart
                "x": f"{order + 1:02d} {s.label} · {s.event}",
                "t_s": s.t_s,
                "allocated_bytes": s.allocated_bytes,
                "reserved_bytes": s.reserved_bytes,
                "peak_bytes": s.peak_bytes,
                "inactive_split_bytes": s.inactive_split_bytes,
                "fragmentation_bytes": frag,
                "rss_bytes": s.rss_bytes,
                "step_ms": s.step_ms,
            }
        )
    return pd.DataFrame(rows, columns=STEP_COLUMNS)


def steps_long(steps: pd.DataFrame) -> pd.DataFrame:
    """allocated / reserved / peak per mark, long form (rows without CUDA values dropped)."""
    frame = steps.melt(
        id_vars=["scenario", "step", "label", "event", "x", "t_s"],
        value_vars=[f"{s}_bytes" for s in SERIES],
        var_name="series",
        value_name="bytes",
    ).dropna(subset=["bytes"])
    frame["series"] = frame["series"].str.removesuffix("_bytes")
    frame["MiB"] = frame["bytes"] / MIB
    return frame.reset_index(drop=True)


def rss_steps_long(steps: pd.DataFrame) -> pd.DataFrame:
    """Host RSS per mark in the same long form (what a CPU run has per step)."""
    frame = steps[["scenario", "step", "label", "event", "x", "t_s", "rss_bytes"]]
    frame = frame.rename(columns={"rss_bytes": "bytes"}).assign(series="host rss")
    frame["MiB"] = frame["bytes"] / MIB
    return frame.reset_index(drop=True)


def trace_frame(result: AllocatorResult) -> pd.DataFrame:
    """The snapshot curves, long form: one row per point and series, on the run's time axis."""
    rows = []
    for p in result.trace:
        values = (p.reserved_bytes, p.allocated_bytes, p.pending_free_bytes)
        for series, value in zip(TRACE_SERIES, values, strict=True):
            rows.append(
                {
                    "scenario": p.scenario,
                    "t_s": p.t_s,
                    "series": series,
                    "bytes": value,
                    "MiB": value / MIB,
                    "action": p.action,
                }
            )
    return pd.DataFrame(rows, columns=["scenario", "t_s", "series", "bytes", "MiB", "action"])


def rss_frame(result: AllocatorResult) -> pd.DataFrame:
    rows = [
        {"t_s": s.t_s, "rss_bytes": s.rss_bytes, "MiB": s.rss_bytes / MIB, "children": s.children}
        for s in result.rss
    ]
    return pd.DataFrame(rows, columns=["t_s", "rss_bytes", "MiB", "children"])


def curves_csv_frame(result: AllocatorResult) -> pd.DataFrame:
    """Every curve in one table for the CSV export: source, scenario, time, series, bytes."""
    trace = trace_frame(result).assign(source="snapshot")
    rss = rss_frame(result).assign(source="psutil", scenario="", series="host rss")
    rss = rss.rename(columns={"rss_bytes": "bytes"})
    steps = steps_long(steps_frame(result)).assign(source="memory_stats")
    columns = ["source", "scenario", "t_s", "series", "bytes"]
    parts = [f[columns] for f in (trace, rss, steps) if not f.empty]
    if not parts:
        return pd.DataFrame(columns=columns)
    return pd.concat(parts, ignore_index=True).sort_values("t_s", kind="stable")


def snapshots_frame(result: AllocatorResult) -> pd.DataFrame:
    """Per scenario, the segments at its end: reserved split into allocated and cached free."""
    rows = []
    for s in result.snapshots:
        rows.append(
            {
                "scenario": s.scenario,
                "segments": s.segments,
                "reserved_MiB": s.reserved_bytes / MIB,
                "allocated_MiB": s.allocated_bytes / MIB,
                "inactive_MiB": s.inactive_bytes / MIB,
                "inactive_blocks": s.inactive_blocks,
                "largest_inactive_MiB": s.largest_inactive_bytes / MIB,
                "fragmentation": (
                    1 - s.largest_inactive_bytes / s.inactive_bytes if s.inactive_bytes else 0.0
                ),
                "private_pool_MiB": s.private_pool_bytes / MIB,
                "peak_allocated_MiB": s.peak_allocated_bytes / MIB,
                "peak_reserved_MiB": s.peak_reserved_bytes / MIB,
                "trace_entries": s.entries,
                "max_entries": s.max_entries,
            }
        )
    return pd.DataFrame(rows)


def streams_frame(result: AllocatorResult) -> pd.DataFrame:
    rows = [
        {
            "scenario": s.scenario,
            "stream": b.stream,
            "reserved_MiB": b.reserved_bytes / MIB,
            "peak_allocated_MiB": b.peak_allocated_bytes / MIB,
        }
        for s in result.snapshots
        for b in s.streams
    ]
    return pd.DataFrame(rows, columns=["scenario", "stream", "reserved_MiB", "peak_allocated_MiB"])


def empty_cache_frame(result: AllocatorResult) -> pd.DataFrame:
    """Per timed round: the whole sequence's time with empty_cache() after every step, and never."""
    e = result.empty_cache
    if e is None:
        return pd.DataFrame(columns=["variant", "round", "round_ms", "per_step_ms"])
    rows = [
        {"variant": variant, "round": i + 1, "round_ms": ms, "per_step_ms": ms / e.steps}
        for variant, samples in (("never", e.never_round_ms), ("every step", e.every_round_ms))
        for i, ms in enumerate(samples)
    ]
    return pd.DataFrame(rows)


def peaks_frame(result: AllocatorResult) -> pd.DataFrame:
    """Peak allocated per scenario (max over its steps) and the compiled comparison's two peaks."""
    steps = steps_frame(result).dropna(subset=["peak_bytes"])
    rows = [
        {"what": f"{name}: max step peak", "bytes": int(group["peak_bytes"].max())}
        for name, group in steps.groupby("scenario", sort=False)
    ]
    c = result.compare
    if c is not None and c.eager_peak_bytes is not None:
        side = "x".join(str(d) for d in c.shape)
        rows.append({"what": f"eager {side}, above inputs", "bytes": c.eager_peak_bytes})
        rows.append({"what": f"compiled {side}, above inputs", "bytes": c.compiled_peak_bytes})
    frame = pd.DataFrame(rows, columns=["what", "bytes"])
    frame["MiB"] = frame["bytes"] / MIB
    return frame
