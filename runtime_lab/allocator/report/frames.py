"""Allocator results → tidy DataFrames: steps, trace curves, host RSS, snapshots, timings."""

from __future__ import annotations

import numpy as np
import pandas as pd

from runtime_lab.allocator.result import AllocatorResult

MIB = 2**20
SERIES = ("reserved", "allocated", "peak")  # drawn in this order: reserved behind the others
TRACE_SERIES = ("reserved", "allocated", "pending free")
PENDING_MIN_MS = 0.1
PAD_S = 0.02  # one host RSS sample either side of a scenario, so its RSS curve reaches the edges
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
    "saved_bytes",
]


def _mib(value) -> float | None:
    return None if value is None else value / MIB


def steps_frame(result: AllocatorResult) -> pd.DataFrame:
    """One row per mark: memory_stats (None on CPU), host RSS, the step's time."""
    rows, seen = [], {}
    for s in result.steps:
        seen[s.scenario] = order = seen.get(s.scenario, 0) + 1
        frag = None
        if s.reserved_bytes is not None and s.allocated_bytes is not None:
            frag = s.reserved_bytes - s.allocated_bytes
        rows.append(
            {
                "scenario": s.scenario,
                "step": s.index,
                "label": s.label,
                "event": s.event,
                # the x-axis name: unique within the scenario and in run order, so repeated
                # shapes stay apart; numbered per scenario as each scenario has its own chart
                "x": f"{order:02d} {s.label} · {s.event}",
                "t_s": s.t_s,
                "allocated_bytes": s.allocated_bytes,
                "reserved_bytes": s.reserved_bytes,
                "peak_bytes": s.peak_bytes,
                "inactive_split_bytes": s.inactive_split_bytes,
                "fragmentation_bytes": frag,
                "rss_bytes": s.rss_bytes,
                "step_ms": s.step_ms,
                "saved_bytes": s.saved_bytes,
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
    """Peak allocated and reserved per scenario, and the compiled comparison's two one-call peaks.

    Per scenario from its snapshot trace (every alloc and segment, recorded for the scenario
    alone): max memory_stats peak over steps would carry the previous scenario's peak into
    scenarios that do not reset it per step. Runs without snapshots fall back to the steps.
    """
    rows = []
    for s in result.snapshots:
        rows.append({"what": s.scenario, "series": "reserved", "bytes": s.peak_reserved_bytes})
        rows.append({"what": s.scenario, "series": "allocated", "bytes": s.peak_allocated_bytes})
    if not rows:
        steps = steps_frame(result).dropna(subset=["peak_bytes"])
        rows = [
            {"what": name, "series": "allocated", "bytes": int(group["peak_bytes"].max())}
            for name, group in steps.groupby("scenario", sort=False)
        ]
    c = result.compare
    if c is not None and c.eager_peak_bytes is not None:
        side = "x".join(str(d) for d in c.shape)
        for mode, value in (("eager", c.eager_peak_bytes), ("compiled", c.compiled_peak_bytes)):
            rows.append(
                {"what": f"{mode} {side}: one call", "series": "above inputs", "bytes": value}
            )
    frame = pd.DataFrame(rows, columns=["what", "series", "bytes"])
    frame["MiB"] = frame["bytes"] / MIB
    return frame


def scenario_windows(trace: pd.DataFrame, steps: pd.DataFrame) -> pd.DataFrame:
    """Per scenario in run order, the stretch of the run it covers: its first to last point,
    padded but never into a neighbour, so each scenario gets a time axis of its own (one
    scenario's 8 s compile must not squeeze another's 10 ms steps into slivers)."""
    parts = [f[["scenario", "t_s"]] for f in (trace, steps) if not f.empty]
    if not parts:
        return pd.DataFrame(columns=["scenario", "start_s", "end_s"])
    points = pd.concat(parts)
    w = points.groupby("scenario", sort=False)["t_s"].agg(first="min", last="max")
    w = w.sort_values("first").reset_index()
    start = np.fmax(w["first"] - PAD_S, (w["last"].shift(1) + w["first"]) / 2)
    end = np.fmin(w["last"] + PAD_S, (w["last"] + w["first"].shift(-1)) / 2)
    return pd.DataFrame({"scenario": w["scenario"], "start_s": start.clip(lower=0), "end_s": end})


def within(frame: pd.DataFrame, windows: pd.DataFrame) -> pd.DataFrame:
    """Rows inside their scenario's window with `ms` since it began; a frame without a scenario
    column (host RSS) is split by time."""
    parts = []
    for w in windows.itertuples():
        part = frame[(frame["t_s"] >= w.start_s) & (frame["t_s"] <= w.end_s)]
        if "scenario" in frame:
            part = part[part["scenario"] == w.scenario]
        parts.append(part.assign(scenario=w.scenario, ms=(part["t_s"] - w.start_s) * 1e3))
    if not parts:
        return frame.assign(scenario=pd.Series(dtype=str), ms=pd.Series(dtype=float))
    return pd.concat(parts, ignore_index=True)


def lasting_pending(trace: pd.DataFrame) -> pd.DataFrame:
    """One scenario's curves with pending free kept only where it lasted PENDING_MIN_MS: a
    same-stream free is requested and completed within µs, which a step line would draw as a
    spike of the block's size; a wait on another stream (record_stream) lasts."""
    pending = trace[trace["series"] == "pending free"].sort_values("t_s")
    lasted = (pending["t_s"].shift(-1) - pending["t_s"]) * 1e3 >= PENDING_MIN_MS
    real = pending[lasted & (pending["bytes"] > 0)]
    if real.empty:
        return trace[trace["series"] != "pending free"]
    zero = pending.index.difference(real.index)
    return trace.assign(MiB=trace["MiB"].where(~trace.index.isin(zero), 0.0))


def spaced_labels(marks: pd.DataFrame, span_ms: float, width_px: float, gap_px: float):
    """Which marks get a text label: the first mark of each step, skipping any closer than gap_px
    to the last one labelled (the rest keep their rule and tooltip)."""
    first = (marks["step"] != marks["step"].shift()) | (marks["label"] != marks["label"].shift())
    show, last = [], None
    for ms, is_first in zip(marks["ms"], first, strict=True):
        ok = bool(is_first) and (last is None or (ms - last) * width_px / span_ms >= gap_px)
        show.append(ok)
        last = ms if ok else last
    return pd.Series(show, index=marks.index, dtype=bool)
