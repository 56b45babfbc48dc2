"""Streams runs side by side: figures it leaves out, their raw samples, the overlaid charts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt

from runtime_lab.compare import charts as cc
from runtime_lab.streams.report import charts as cs
from runtime_lab.streams.report import frames as sf
from runtime_lab.streams.report.figures import figures
from runtime_lab.streams.report.headline import error_label
from runtime_lab.streams.result import StreamsResult, op_timing

IGNORED = ("trials", "delay_ms", "variants.*.trials")  # inputs, the same in like runs


def samples(result: StreamsResult) -> dict[str, tuple[float, ...]]:
    """The raw samples behind each figure that is a median of them."""
    found = {f"host_us_median.{b.call}": b.host_us for b in result.host_blocking}
    if result.event_ms:
        found["event_elapsed_ms_median"] = result.event_ms
    timed = op_timing(result)
    if result.workload and timed is not None:
        found["op_ms_median"] = timed.primary_ms
    return found


def charts(results: Sequence[tuple[str, StreamsResult]]) -> list[tuple[str, Any]]:
    """Wrong results per ordering and overlap per case, the run as colour."""
    runs = [name for name, _ in results]
    pairs = [(name, (r, figures(r))) for name, r in results]  # each run's figures, once
    variants = cc.with_run(pairs, lambda p: sf.variants_frame(*p))
    overlap = cc.with_run(pairs, lambda p: sf.overlap_frame(*p))
    run = alt.Tooltip("run:N")
    variant_tip = [
        run,
        alt.Tooltip("variant:N", title="ordering"),
        alt.Tooltip("guaranteed:N", title="ordering guarantees the result"),
        alt.Tooltip("mismatches:Q", title="wrong results"),
        alt.Tooltip("trials:Q"),
        alt.Tooltip("worst_abs_diff:Q", format=cs.ERROR_FORMAT, title=error_label()),
    ]
    overlap_tip = [
        run,
        alt.Tooltip("case:N"),
        alt.Tooltip("overlap_pct:Q", format=".1f", title="overlap (%)"),
        alt.Tooltip("wall_gain_pct:Q", format=".1f", title="wall-time gain (%)"),
        alt.Tooltip("one_stream_ms:Q", format=".3f", title="one stream (ms)"),
        alt.Tooltip("two_streams_ms:Q", format=".3f", title="two streams (ms)"),
    ]
    return cc.present(
        [
            (
                "Wrong results per ordering (of each run's trials)",
                cc.grouped_bars(
                    variants,
                    runs,
                    y="variant",
                    x="mismatches",
                    x_title="trials with a wrong result",
                    tooltip=variant_tip,
                ),
            ),
            (
                "Overlap of the two streams, per case",
                cc.grouped_bars(
                    overlap,
                    runs,
                    y="case",
                    x="overlap_pct",
                    x_title="time both streams are busy (% of either busy)",
                    tooltip=overlap_tip,
                ),
            ),
        ]
    )
