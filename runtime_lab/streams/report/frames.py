"""Streams results → tidy DataFrames: variants, timeline rows, overlap, host blocking, timing."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable

import pandas as pd

from runtime_lab.results import Timing, stats
from runtime_lab.streams.report.figures import StreamsFigures
from runtime_lab.streams.result import OverlapCase, StreamsResult, Timeline, harness
from runtime_lab.view import frames

TIMELINE_COLUMNS = [
    "section",
    "lane",
    "kind",
    "name",
    "start_us",
    "end_us",
    "duration_us",
    "host_us",
    "stream_id",
]
# the most rows one section's timeline contributes to a chart: a long section is thinned out
MAX_TIMELINE_ROWS = 1500


def _median(values) -> float | None:
    s = stats(values)
    return s.median if s else None


def variants_frame(result: StreamsResult, fig: StreamsFigures) -> pd.DataFrame:
    rows = []
    for v, worst in zip(result.variants, fig.worst_abs_diff, strict=True):
        rows.append(
            {
                "variant": v.variant,
                "guaranteed": "ordered" if v.expected_correct else "broken",
                "mismatches": v.mismatches,
                "trials": v.trials,
                "mismatch_pct": 100.0 * v.mismatches / v.trials if v.trials else 0.0,
                "worst_abs_diff": worst,
                "nonfinite_trials": v.nonfinite_trials,
                "reused_block": v.reused_block,
                "host_ms_median": _median(v.host_ms),
                "device_ms_median": _median(v.device_ms),
                "description": v.description,
                "error": v.error,
            }
        )
    return pd.DataFrame(rows)


def trial_diffs_frame(result: StreamsResult) -> pd.DataFrame:
    """One row per trial: its largest finite |consumed − reference|."""
    rows = [
        {
            "variant": v.variant,
            "trial": i,
            "abs_diff": d,
        }
        for v in result.variants
        for i, d in enumerate(v.diffs)
    ]
    return pd.DataFrame(rows, columns=["variant", "trial", "abs_diff"])


def timeline_rows(section: str, timeline: Timeline | None) -> pd.DataFrame:
    """Kernels, host calls and marks of one profiled section as rows on lanes (µs)."""
    if timeline is None:
        return pd.DataFrame(columns=TIMELINE_COLUMNS)
    rows = [
        (section, k.lane, "kernel", k.name, k.start_us, k.end_us, None, k.stream_id)
        for k in timeline.kernels
    ]
    rows += [
        (section, "host", "host call", f"{c.name} ({c.lane})", c.start_us, c.end_us, None, None)
        for c in timeline.host_calls
    ]
    for m in timeline.marks:
        if m.kind == "sync" or m.device_us is None:
            continue  # syncs are drawn as host calls; an unmatched wait has no device time
        rows.append((section, m.lane, m.kind, m.label, m.device_us, m.device_us, m.host_us, None))
    for r in timeline.syncs:  # the profiler's own records, at the time the host issued them
        name = r.kind + (f" (event {r.event_id})" if r.event_id not in (None, -1) else "")
        end = r.host_us + r.duration_us
        rows.append((section, r.lane, "profiler sync", name, r.host_us, end, r.host_us, None))
    frame = pd.DataFrame(
        [(s, lane, kind, n, a, b, b - a, h, sid) for s, lane, kind, n, a, b, h, sid in rows],
        columns=TIMELINE_COLUMNS,
    )
    return _bounded(frame)


def _bounded(frame: pd.DataFrame) -> pd.DataFrame:
    """Keep marks and the longest kernels when a section has more rows than a chart needs."""
    if len(frame) <= MAX_TIMELINE_ROWS:
        return frame
    marks = frame[frame["kind"] != "kernel"]
    kernels = frame[frame["kind"] == "kernel"].nlargest(
        max(MAX_TIMELINE_ROWS - len(marks), 0), "duration_us"
    )
    return pd.concat([kernels, marks]).sort_values("start_us", ignore_index=True)


def variant_timelines(result: StreamsResult) -> pd.DataFrame:
    frames = [timeline_rows(v.variant, v.timeline) for v in result.variants if v.timeline]
    return _concat(frames)


def overlap_timelines(result: StreamsResult) -> pd.DataFrame:
    frames = []
    for case in result.overlap:
        frames.append(_after_gate(timeline_rows(f"{case.label}: two streams", case.timeline)))
        frames.append(_after_gate(timeline_rows(f"{case.label}: one stream", case.serial_timeline)))
    return _concat(frames)


def _after_gate(rows: pd.DataFrame) -> pd.DataFrame:
    """Drop the gate (the spin that lets both queues fill) and start the clock when it ends:
    otherwise a 3 ms spin dwarfs the small kernels being compared."""
    gate = (rows["kind"] == "kernel") & rows["name"].str.contains("spin_kernel")
    if rows.empty or not gate.any():
        return rows
    t0 = rows.loc[gate, "end_us"].max()
    kept = rows[~gate & (rows["end_us"] > t0)].copy()
    kept["start_us"] = kept["start_us"].clip(lower=t0) - t0
    kept["end_us"] = kept["end_us"] - t0
    kept["duration_us"] = kept["end_us"] - kept["start_us"]
    return kept.reset_index(drop=True)


def _concat(frames: list[pd.DataFrame]) -> pd.DataFrame:
    frames = [f for f in frames if not f.empty]
    return (
        pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=TIMELINE_COLUMNS)
    )


def size_text(case: OverlapCase) -> str:
    """What each kernel of an overlap case runs at: the seed's n², or a workload's shape."""
    return "x".join(map(str, case.shape)) if case.shape else f"{case.size}²"


def overlap_frame(result: StreamsResult, fig: StreamsFigures) -> pd.DataFrame:
    rows = []
    for case, found in zip(result.overlap, fig.overlap, strict=True):
        rows.append(
            {
                "case": case.label,
                "size": size_text(case) if case.shape else case.size,
                "kernels_per_stream": case.kernels_per_stream,
                "one_stream_ms": found.one_stream_ms,
                "two_streams_ms": found.two_streams_ms,
                "wall_gain_pct": found.wall_gain_pct,
                "overlap_pct": case.overlap_pct,
                "samples": len(case.serial_ms),
            }
        )
    return pd.DataFrame(rows)


def blocking_frame(result: StreamsResult, fig: StreamsFigures) -> pd.DataFrame:
    rows = [
        {
            "call": b.call,
            "blocks": b.blocks,
            "host_us_median": s.median if s else None,
            "host_us_max": max(b.host_us, default=None),
            "queued_ms": b.queued_ms,
            "samples": len(b.host_us),
        }
        for b, s in zip(result.host_blocking, fig.host_us, strict=True)
    ]
    return pd.DataFrame(rows)


def event_timings(result: StreamsResult) -> tuple[Timing, ...]:
    """The matmul timed by hand with Event.elapsed_time next to the harness's timing of it, as
    Timings, so frames.timing_samples / timing_summary and charts.timing_chart draw both."""
    timed = harness(result)
    if not result.event_ms or timed is None:
        return ()
    flush = "L2 flushed" if timed.l2_flush else "no flush"
    by_hand = Timing(
        label="Event.elapsed_time (side stream, back to back)",
        clock="cuda-events",
        device_ms=result.event_ms,
        host_ms=(),
        first_call_ms=math.nan,  # the hand loop has no separate first call
        warmup=0,
        repeat=len(result.event_ms),
        l2_flush=False,
    )
    lab = dataclasses.replace(timed, label=f"lab harness ({flush})", host_ms=())
    return by_hand, lab


def lane_map_frame(result: StreamsResult) -> pd.DataFrame:
    pairs = {}
    for v in result.variants:
        for lane, sid in v.timeline.lane_streams if v.timeline else ():
            pairs.setdefault((lane, sid), []).append(v.variant)
    rows = [
        {"lab lane": lane, "profiler stream id": sid, "seen in": ", ".join(names)}
        for (lane, sid), names in sorted(pairs.items())
    ]
    return pd.DataFrame(rows)


def steps_frame(steps: Iterable[str]) -> pd.DataFrame:
    """'lane: action' strings → order, lane, action (the happens-before chain drawn as lanes)."""
    rows = []
    for order, step in enumerate(steps, start=1):
        lane, _, action = step.partition(": ")
        rows.append({"order": order, "lane": lane, "action": action or lane})
    return pd.DataFrame(rows, columns=["order", "lane", "action"])


@dataclasses.dataclass(frozen=True)
class StreamsFrames:
    """Every frame a streams report draws, tabulates or offers, built once per report."""

    variants: pd.DataFrame
    variant_timelines: pd.DataFrame
    overlap: pd.DataFrame
    overlap_timelines: pd.DataFrame
    blocking: pd.DataFrame
    lane_map: pd.DataFrame
    samples: pd.DataFrame
    summary: pd.DataFrame


def report_frames(result: StreamsResult, fig: StreamsFigures) -> StreamsFrames:
    return StreamsFrames(
        variants=variants_frame(result, fig),
        variant_timelines=variant_timelines(result),
        overlap=overlap_frame(result, fig),
        overlap_timelines=overlap_timelines(result),
        blocking=blocking_frame(result, fig),
        lane_map=lane_map_frame(result),
        samples=frames.timing_samples(result.timings),
        summary=frames.timing_summary(result.timings),
    )
