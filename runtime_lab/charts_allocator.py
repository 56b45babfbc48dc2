"""Allocator frames → Altair charts: memory over time, per step, peaks, empty_cache's cost."""

from __future__ import annotations

import altair as alt
import pandas as pd

from runtime_lab.frames_allocator import SERIES, TRACE_SERIES

COLORS = {
    "reserved": "#9ecae9",
    "allocated": "#4c78a8",
    "peak": "#e45756",
    "pending free": "#f58518",
    "host rss": "#54a24b",
}
WIDTH = 900


def _scale(names) -> alt.Scale:
    return alt.Scale(domain=list(names), range=[COLORS[n] for n in names])


def _title(text: str, why: list[str]) -> alt.TitleParams:
    """A chart's title with its explanation underneath, so the reason sits beside the data."""
    return alt.TitleParams(text, subtitle=why, anchor="start", subtitleColor="#555555")


def _rules(steps: pd.DataFrame, y_top: bool) -> alt.LayerChart:
    """A thin rule at every step mark (labelled on the top chart) on the shared time axis."""
    marks = steps[steps["event"] == "computed"]
    rule = alt.Chart(marks).mark_rule(color="#999999", strokeDash=[2, 3]).encode(x="t_s:Q")
    if not y_top:
        return rule
    text = (
        alt.Chart(marks)
        .mark_text(angle=270, align="right", baseline="bottom", dx=-4, fontSize=10, color="#555")
        .encode(x="t_s:Q", y=alt.value(0), text="label:N")
    )
    return rule + text


def timeline_chart(trace: pd.DataFrame, rss: pd.DataFrame, steps: pd.DataFrame, why: list[str]):
    """GPU: reserved as an area behind allocated (the snapshot); host: RSS; one time axis."""
    x = alt.X("t_s:Q", title="seconds since the run started")
    tooltip = ["scenario:N", "series:N", alt.Tooltip("MiB:Q", format=",.1f"), "action:N"]
    host = (
        alt.Chart(rss.assign(series="host rss"))
        .mark_line(interpolate="step-after")
        .encode(
            x=x,
            y=alt.Y("MiB:Q", title="host RSS + children (MiB)").scale(zero=False),
            color=alt.Color("series:N", scale=_scale(["host rss"]), title=None),
            tooltip=[alt.Tooltip("MiB:Q", format=",.1f"), "children:Q", "t_s:Q"],
        )
    )
    host = alt.layer(host, _rules(steps, y_top=trace.empty)).properties(width=WIDTH, height=140)
    if trace.empty:
        return host.properties(title=_title("Host memory over the run (psutil)", why))
    area = trace[trace["series"] == "reserved"]
    lines = trace[trace["series"] != "reserved"]
    color = alt.Color("series:N", scale=_scale(TRACE_SERIES), title=None)
    gpu = alt.layer(
        alt.Chart(area)
        .mark_area(opacity=0.6, interpolate="step-after")
        .encode(x=x, y=alt.Y("MiB:Q", title="GPU memory (MiB)"), color=color, tooltip=tooltip),
        alt.Chart(lines)
        .mark_line(interpolate="step-after")
        .encode(x=x, y="MiB:Q", color=color, tooltip=tooltip),
        _rules(steps, y_top=True),
    ).properties(width=WIDTH, height=260)
    return (
        alt.vconcat(gpu, host)
        .resolve_scale(x="shared", color="independent")
        .properties(title=_title("GPU memory (snapshot trace) and host RSS over the run", why))
    )


def steps_chart(long: pd.DataFrame, scenario: str, why: list[str]) -> alt.LayerChart:
    """Per mark of one scenario: reserved as bars, allocated and peak as points joined by lines."""
    data = long[long["scenario"] == scenario]
    order = list(dict.fromkeys(data["x"]))
    x = alt.X("x:N", sort=order, title=None).axis(labelAngle=-35, labelLimit=220)
    names = [n for n in (*SERIES, "host rss") if n in set(data["series"])]
    color = alt.Color("series:N", scale=_scale(names), title=None)
    tooltip = ["label:N", "event:N", "series:N", alt.Tooltip("MiB:Q", format=",.1f")]
    bars = (
        alt.Chart(data[data["series"] == "reserved"])
        .mark_bar(opacity=0.7)
        .encode(x=x, y=alt.Y("MiB:Q", title="MiB"), color=color, tooltip=tooltip)
    )
    points = (
        alt.Chart(data[data["series"] != "reserved"])
        .mark_line(point=True)
        .encode(x=x, y="MiB:Q", color=color, tooltip=tooltip)
    )
    width = min(WIDTH, max(360, 48 * len(order)))
    return alt.layer(bars, points).properties(
        width=width, height=260, title=_title(f"{scenario}: memory_stats per step", why)
    )


def peaks_chart(peaks: pd.DataFrame, why: list[str]) -> alt.Chart:
    return (
        alt.Chart(peaks)
        .mark_bar(color=COLORS["peak"])
        .encode(
            y=alt.Y("what:N", sort=None, title=None).axis(labelLimit=300),
            x=alt.X("MiB:Q", title="peak allocated (MiB)"),
            tooltip=["what:N", alt.Tooltip("MiB:Q", format=",.1f"), "bytes:Q"],
        )
        .properties(width=WIDTH - 300, title=_title("Peak memory", why))
    )


def empty_cache_chart(rounds: pd.DataFrame, why: list[str]) -> alt.LayerChart:
    """Every timed round as a point, the median as a tick, per variant."""
    y = alt.Y("variant:N", title=None, sort=["never", "every step"])
    x = alt.X("per_step_ms:Q", title="ms per step (round time / steps)")
    points = (
        alt.Chart(rounds)
        .mark_circle(size=60, opacity=0.7)
        .encode(x=x, y=y, tooltip=["variant:N", "round:Q", alt.Tooltip("round_ms:Q", format=".3f")])
    )
    median = (
        alt.Chart(rounds)
        .mark_tick(color="black", thickness=2, size=24)
        .encode(x="median(per_step_ms):Q", y=y)
    )
    return alt.layer(points, median).properties(
        width=WIDTH - 300, height=110, title=_title("empty_cache() after every step vs never", why)
    )
