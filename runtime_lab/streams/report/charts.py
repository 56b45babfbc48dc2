"""Streams charts: mismatches per variant, per-stream Gantt timelines with marks, overlap, host."""

from __future__ import annotations

import altair as alt
import pandas as pd

from runtime_lab.streams.report.headline import error_label

LANE_ORDER = ["default", "side", "a", "b", "host"]
TIMELINE_WIDTH = 820
GUARANTEE_SCALE = alt.Scale(domain=["ordered", "broken"], range=["#54a24b", "#e45756"])
ERROR_FORMAT = ",.3~r"  # plain notation, three significant digits: 0, 0.000015, 3,140
KIND_SCALE = alt.Scale(
    domain=["kernel", "host call", "record", "wait", "wait_stream", "profiler sync"],
    range=["#4c78a8", "#f58518", "#222222", "#e45756", "#b279a2", "#17becf"],
)


def mismatch_chart(variants: pd.DataFrame) -> alt.LayerChart:
    """Mismatching trials out of N per variant: broken orderings should light up, ordered stay 0."""
    base = alt.Chart(variants).encode(
        y=alt.Y(
            "variant:N", sort=list(variants["variant"]), title=None, axis=alt.Axis(labelLimit=260)
        ),
        tooltip=[
            alt.Tooltip("variant:N"),
            alt.Tooltip("guaranteed:N", title="ordering"),
            alt.Tooltip("mismatches:Q"),
            alt.Tooltip("trials:Q"),
            alt.Tooltip("worst_abs_diff:Q", format=ERROR_FORMAT, title=error_label()),
            alt.Tooltip("reused_block:Q", title="trials where the freed block was reused"),
            alt.Tooltip("description:N"),
        ],
    )
    bars = base.mark_bar().encode(
        x=alt.X(
            "mismatch_pct:Q",
            title="trials with a wrong result (%)",
            scale=alt.Scale(domain=[0, 100]),
        ),
        # below the plot: at the right it stood where a 100 % bar's "20 / 20" label is drawn
        color=alt.Color(
            "guaranteed:N",
            scale=GUARANTEE_SCALE,
            title="ordering",
            legend=alt.Legend(orient="bottom"),
        ),
    )
    text = (
        base.mark_text(align="left", dx=4)
        .encode(x="mismatch_pct:Q", text=alt.Text("label:N"))
        .transform_calculate(label="datum.mismatches + ' / ' + datum.trials")
    )
    return alt.layer(bars, text).properties(height=alt.Step(24))


def _timeline_tooltip() -> list[alt.Tooltip]:
    return [
        alt.Tooltip("section:N"),
        alt.Tooltip("lane:N"),
        alt.Tooltip("kind:N"),
        alt.Tooltip("name:N"),
        alt.Tooltip("start_us:Q", format=",.1f", title="start (µs)"),
        alt.Tooltip("end_us:Q", format=",.1f", title="end (µs)"),
        alt.Tooltip("duration_us:Q", format=",.1f", title="duration (µs)"),
        alt.Tooltip("host_us:Q", format=",.1f", title="issued by the host at (µs)"),
        alt.Tooltip("stream_id:Q", title="profiler stream id"),
    ]


def timeline_chart(rows: pd.DataFrame, sections: list[str]) -> alt.FacetChart:
    """A Gantt chart per section: kernels on the lab's stream lanes, ordering host calls on a
    host lane, event records (▼) and waits (|) at the device time they take effect, and the
    profiler's own sync records (+) where the trace has them."""
    lanes = [lane for lane in LANE_ORDER if lane in set(rows["lane"])]
    lanes += sorted(set(rows["lane"]) - set(lanes))
    y = alt.Y("lane:N", sort=lanes, title=None)
    x = alt.X("start_us:Q", title="time since the section began (µs)")
    color = alt.Color("kind:N", scale=KIND_SCALE, title="what")
    base = alt.Chart().encode(y=y, tooltip=_timeline_tooltip())
    spans = (
        base.transform_filter("datum.kind == 'kernel' || datum.kind == 'host call'")
        .mark_bar(height=14, stroke="white", strokeWidth=0.3)
        .encode(x=x, x2="end_us:Q", color=color)
    )
    records = (
        base.transform_filter("datum.kind == 'record'")
        .mark_point(shape="triangle-down", size=90, filled=True, yOffset=-10)
        .encode(x=x, color=color)
    )
    waits = (
        base.transform_filter("datum.kind == 'wait' || datum.kind == 'wait_stream'")
        .mark_tick(thickness=2.5, size=22)
        .encode(x=x, color=color)
    )
    syncs = (  # the profiler's own sync records: below the lane, at host issue time
        base.transform_filter("datum.kind == 'profiler sync'")
        .mark_point(shape="cross", size=70, filled=True, yOffset=10)
        .encode(x=x, color=color)
    )
    return (
        alt.layer(spans, records, waits, syncs, data=rows)
        # a faceted chart cannot stretch to its container: a fixed width per panel
        .properties(width=TIMELINE_WIDTH, height=alt.Step(22))
        .facet(
            row=alt.Row(
                "section:N",
                sort=sections,
                title=None,
                header=alt.Header(labelAngle=0, labelAlign="left"),
            )
        )
        .resolve_scale(x="independent")
    )


def overlap_chart(overlap: pd.DataFrame) -> alt.FacetChart:
    """One stream vs two streams per case (median device ms), the overlap % in the tooltip."""
    long = overlap.melt(
        id_vars=["case", "overlap_pct", "wall_gain_pct"],
        value_vars=["one_stream_ms", "two_streams_ms"],
        var_name="arrangement",
        value_name="time_ms",
    )
    long["arrangement"] = long["arrangement"].map(
        {"one_stream_ms": "one stream", "two_streams_ms": "two streams"}
    )
    return (
        alt.Chart(long)
        .mark_bar()
        .encode(
            y=alt.Y("arrangement:N", title=None),
            x=alt.X("time_ms:Q", title="both chains, median device time (ms)"),
            color=alt.Color("arrangement:N", legend=None),
            tooltip=[
                alt.Tooltip("case:N"),
                alt.Tooltip("arrangement:N"),
                alt.Tooltip("time_ms:Q", format=".4f"),
                alt.Tooltip("overlap_pct:Q", format=".1f", title="kernel overlap (%)"),
                alt.Tooltip("wall_gain_pct:Q", format=".1f", title="wall-time gain (%)"),
            ],
        )
        .properties(height=alt.Step(26), width=260)
        .facet(column=alt.Column("case:N", title=None, sort=list(overlap["case"])))
        .resolve_scale(x="independent")
    )


def blocking_chart(blocking: pd.DataFrame) -> alt.LayerChart:
    """Host µs per call (log): wait_event only enqueues, synchronize waits for the queued work."""
    calls = alt.Y("call:N", title=None, sort=list(blocking["call"]), axis=alt.Axis(labelLimit=260))
    # bars on a log axis need a positive base: draw them from 0.1 µs
    base = alt.Chart(blocking).transform_calculate(base_us="0.1").encode(y=calls)
    bars = base.mark_bar(height=18).encode(
        x=alt.X(
            "host_us_median:Q",
            scale=alt.Scale(type="log"),
            title="host time per call, median (µs, log)",
        ),
        x2="base_us:Q",
        color=alt.Color(
            "blocks:N",
            title="blocks the host",
            scale=alt.Scale(domain=[False, True], range=["#54a24b", "#e45756"]),
        ),
        tooltip=[
            alt.Tooltip("call:N"),
            alt.Tooltip("host_us_median:Q", format=",.1f", title="median (µs)"),
            alt.Tooltip("host_us_max:Q", format=",.1f", title="max (µs)"),
            alt.Tooltip("queued_ms:Q", format=".3f", title="device work queued ahead (ms)"),
            alt.Tooltip("samples:Q"),
        ],
    )
    queued = (
        alt.Chart(blocking.head(1))
        .transform_calculate(queued_us="datum.queued_ms * 1000")
        .mark_rule(strokeDash=[4, 3], color="gray")
        .encode(x="queued_us:Q", tooltip=[alt.Tooltip("queued_us:Q", title="queued work (µs)")])
    )
    return alt.layer(bars, queued).properties(height=alt.Step(28))


def diffs_chart(diffs: pd.DataFrame) -> alt.Chart:
    """Each trial's max |side − reference| per variant (symlog: zero stays visible)."""
    label = error_label()
    return (
        alt.Chart(diffs)
        .mark_circle(size=40, opacity=0.7)
        .encode(
            x=alt.X("trial:Q", title="trial"),
            y=alt.Y("abs_diff:Q", scale=alt.Scale(type="symlog"), title=f"{label} (symlog)"),
            color=alt.Color("variant:N"),
            tooltip=[
                "variant:N",
                "trial:Q",
                alt.Tooltip("abs_diff:Q", format=ERROR_FORMAT, title=label),
            ],
        )
        .properties(height=220)
    )


def steps_chart(steps: pd.DataFrame) -> alt.LayerChart:
    """The happens-before chain: one lane per stream, steps left to right in issue order."""
    base = alt.Chart(steps).encode(
        x=alt.X("order:O", title="issue order", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("lane:N", title="stream", sort=["default", "side"]),
        tooltip=[alt.Tooltip("order:O"), alt.Tooltip("lane:N"), alt.Tooltip("action:N")],
    )
    points = base.mark_circle(size=260).encode(color=alt.Color("lane:N", legend=None))
    labels = base.mark_text(dy=-18, fontSize=11).encode(text="action:N")
    return alt.layer(points, labels).properties(height=160)
