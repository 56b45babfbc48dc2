"""Allocator frames → Altair charts: memory over time, per step, peaks, empty_cache's cost."""

from __future__ import annotations

import altair as alt
import pandas as pd

from runtime_lab.allocator.report import frames as fa
from runtime_lab.allocator.report.frames import SERIES, TRACE_SERIES
from runtime_lab.view.fmt import fmt_bytes

COLORS = {
    "reserved": "#9ecae9",
    "allocated": "#4c78a8",
    "peak": "#e45756",
    "pending free": "#f58518",
    "host rss": "#54a24b",
}
# a panel's plot: with its axes and legend (65-85 px more) within the report's column at a
# 1400 px window (898 px on a run's page, 940 in History; 900 overran them by up to 66 px):
# concatenated panels cannot take a container's width (Vega-Lite's "container" is for single
# and layered views, and Streamlit pads a nested vconcat instead of fitting it)
WIDTH = 780
GPU_HEIGHT, HOST_HEIGHT = 200, 70
LABEL_GAP_PX = 13  # a 10 px vertical label needs this much room from its neighbour
TIMELINE_SERIES = (*TRACE_SERIES, "host rss")
STEPS_HEIGHT = 280
PEAK_SERIES = ("reserved", "allocated", "above inputs")
PEAK_COLORS = {"reserved": "#9ecae9", "allocated": "#4c78a8", "above inputs": "#e45756"}


def _scale(names) -> alt.Scale:
    return alt.Scale(domain=list(names), range=[COLORS[n] for n in names])


def _title(text: str, why: list[str]) -> alt.TitleParams:
    """A chart's title with its explanation underneath, so the reason sits beside the data."""
    return alt.TitleParams(text, subtitle=why, anchor="start", subtitleColor="#555555")


def _fit_x(chart):
    """Fill the page's width but keep the given height for the plot: Streamlit's default
    autosize ("fit") squeezes titles, legend and axis labels into it, leaving ~80 px of bars."""
    return chart.properties(autosize=alt.AutoSizeParams(type="fit-x", contains="padding"))


MARK_COLUMNS = ["scenario", "step", "label", "event", "ms", "allocated_MiB", "reserved_MiB"]
MARK_COLUMNS += ["rss_MiB", "saved_MiB", "text"]


def _mark_text(mark) -> str:
    """A mark's label on the curve: the step's label; at a training step's "activations held"
    mark, also what the forward saved for its backward (the bytes between the two passes)."""
    saved = getattr(mark, "saved_bytes", None)
    if saved is None or pd.isna(saved):
        return mark.label
    return f"{mark.label} · {fmt_bytes(int(saved))} saved for backward"


def _markers(marks: pd.DataFrame, span_ms: float, labelled: bool) -> alt.LayerChart:
    """A dashed rule at every memory_stats mark; on the upper panel a ▼ with the mark's numbers
    as its tooltip and, where there is room, the step's label."""
    x = alt.X("ms:Q")
    tooltip = [
        alt.Tooltip("label:N", title="step"),
        alt.Tooltip("event:N"),
        alt.Tooltip("ms:Q", format=",.1f", title="ms since the scenario began"),
        alt.Tooltip("allocated_MiB:Q", format=",.1f", title="allocated (memory_stats, MiB)"),
        alt.Tooltip("reserved_MiB:Q", format=",.1f", title="reserved (memory_stats, MiB)"),
        alt.Tooltip("rss_MiB:Q", format=",.1f", title="host RSS (MiB)"),
        alt.Tooltip("saved_MiB:Q", format=",.1f", title="saved for backward (MiB)"),
    ]
    rules = (
        alt.Chart(marks)
        .mark_rule(color="#888888", strokeDash=[2, 3], clip=True)
        .encode(x=x, tooltip=tooltip)
    )
    if not labelled:
        return alt.layer(rules)
    tips = (
        alt.Chart(marks)
        .mark_point(shape="triangle-down", filled=True, size=40, color="#666666", clip=True)
        .encode(x=x, y=alt.value(4), tooltip=tooltip)
    )
    shown = marks[fa.spaced_labels(marks, span_ms, WIDTH, LABEL_GAP_PX)]
    text = (
        alt.Chart(shown)
        .mark_text(
            angle=270, align="right", baseline="bottom", dx=-10, dy=-2, fontSize=10, clip=True
        )
        .encode(x=x, y=alt.value(0), text="text:N", color=alt.value("#444444"), tooltip=tooltip)
    )
    return alt.layer(rules, tips, text)


def _timeline_color(cuda: bool) -> alt.Color:
    # the legend on top: at the right it would push the panels past the page's width
    names = TIMELINE_SERIES if cuda else ("host rss",)  # no GPU series to name on a CPU run
    return alt.Color("series:N", scale=_scale(names), title=None).legend(orient="top")


def _zoom(scenario: str) -> alt.Parameter:
    """Wheel / drag on a panel zooms and pans its scenario's time axis (double-click resets);
    named per scenario, else Altair merges the identical parameters into one."""
    name = "zoom_" + "".join(c if c.isalnum() else "_" for c in scenario)
    return alt.selection_interval(bind="scales", encodings=["x"], name=name)


def _x(span_ms: float, title: str | None) -> alt.X:
    """The scenario's own time axis; both of its panels get the same domain so they line up."""
    scale = alt.Scale(domain=[0, span_ms], nice=False, zero=True)
    return alt.X("ms:Q", title=title, scale=scale)


def _gpu_panel(trace: pd.DataFrame, marks, span_ms: float, zoom) -> alt.LayerChart:
    """Reserved as an unstacked area from 0; allocated and pending free as lines over it."""
    x = _x(span_ms, None)
    color = _timeline_color(True)
    tooltip = [
        alt.Tooltip("series:N"),
        alt.Tooltip("MiB:Q", format=",.1f"),
        alt.Tooltip("ms:Q", format=",.2f", title="ms since the scenario began"),
        alt.Tooltip("action:N", title="trace entry"),
    ]
    trace = fa.lasting_pending(trace)
    lines = trace[trace["series"] != "reserved"]
    area = (
        alt.Chart(trace[trace["series"] == "reserved"])
        .mark_area(opacity=0.45, interpolate="step-after", clip=True)
        .encode(
            x=x,
            y=alt.Y("MiB:Q", stack=None, title="GPU MiB").scale(zero=True),
            color=color,
            tooltip=tooltip,
        )
        .add_params(zoom)
    )
    line = (
        alt.Chart(lines)
        .mark_line(interpolate="step-after", strokeWidth=1.6, clip=True)
        .encode(x=x, y=alt.Y("MiB:Q", stack=None), color=color, tooltip=tooltip)
    )
    return alt.layer(area, line, _markers(marks, span_ms, True), width=WIDTH, height=GPU_HEIGHT)


def _host_panel(rss: pd.DataFrame, marks, span_ms: float, cuda: bool, zoom=None) -> alt.LayerChart:
    """Host RSS; labelled and zoomable (zoom given) when it is its scenario's only panel."""
    labelled = zoom is not None
    curve = (
        alt.Chart(rss.assign(series="host rss"))
        .mark_line(interpolate="step-after", clip=True)
        .encode(
            x=_x(span_ms, "ms since the scenario began"),
            y=alt.Y("MiB:Q", title="host RSS MiB", stack=None).scale(zero=False),
            color=_timeline_color(cuda),
            tooltip=[
                alt.Tooltip("MiB:Q", format=",.1f", title="RSS + children (MiB)"),
                alt.Tooltip("children:Q", title="child processes"),
                alt.Tooltip("ms:Q", format=",.1f", title="ms since the scenario began"),
            ],
        )
    )
    height = HOST_HEIGHT if not labelled else GPU_HEIGHT
    if labelled:  # the only panel of its scenario (no GPU trace): it carries the zoom
        curve = curve.add_params(zoom)
    return alt.layer(curve, _markers(marks, span_ms, labelled), width=WIDTH, height=height)


def timeline_chart(
    trace: pd.DataFrame,
    rss: pd.DataFrame,
    steps: pd.DataFrame,
    why: list[str],
    notes: dict[str, str] | None = None,
) -> alt.VConcatChart:
    """Per scenario, on its own time axis: GPU memory from the snapshot above, host RSS below."""
    windows = fa.scenario_windows(trace, steps)
    if windows.empty:  # every scenario failed before its first mark: the run's RSS is left
        end = float(rss["t_s"].max()) if not rss.empty else 1.0
        windows = pd.DataFrame({"scenario": ["run"], "start_s": [0.0], "end_s": [end]})
    cuda = not trace.empty
    trace, rss = fa.within(trace, windows), fa.within(rss, windows)
    marks = fa.within(steps, windows).assign(
        allocated_MiB=lambda f: f["allocated_bytes"] / fa.MIB,
        reserved_MiB=lambda f: f["reserved_bytes"] / fa.MIB,
        rss_MiB=lambda f: f["rss_bytes"] / fa.MIB,
        saved_MiB=lambda f: f["saved_bytes"] / fa.MIB,
        text=lambda f: [_mark_text(r) for r in f.itertuples()],
    )[MARK_COLUMNS]
    blocks = []
    for w in windows.itertuples():
        span = (w.end_s - w.start_s) * 1e3
        mine = marks[marks["scenario"] == w.scenario]
        gpu = trace[trace["scenario"] == w.scenario]
        host = rss[rss["scenario"] == w.scenario]
        if gpu.empty:  # CPU: host RSS is all there is
            panels = [_host_panel(host, mine, span, cuda, _zoom(w.scenario))]
        else:
            panels = [
                _gpu_panel(gpu, mine, span, _zoom(w.scenario)),
                _host_panel(host, mine, span, cuda),
            ]
        note = (notes or {}).get(w.scenario, "")
        title = alt.TitleParams(
            f"{w.scenario} · {span / 1e3:.2f} s", subtitle=note, anchor="start", fontSize=13
        )
        shared_x = alt.Resolve(scale=alt.ScaleResolveMap(x="shared", y="independent"))
        blocks.append(alt.vconcat(*panels, spacing=4, title=title, resolve=shared_x))
    gpu_title = "host RSS" if trace.empty else "GPU memory (snapshot trace) and host RSS"
    # every property in the constructor: each chained call (.resolve_scale, .properties)
    # deep-copied the whole tree of panels and layers, a second of this chart's build
    return alt.vconcat(
        *blocks,
        spacing=26,
        resolve=alt.Resolve(
            scale=alt.ScaleResolveMap(x="independent", y="independent", color="shared")
        ),
        title=_title(f"{gpu_title} per scenario, each on its own time axis", why),
    )


def steps_chart(long: pd.DataFrame, scenario: str, why: list[str]) -> alt.LayerChart:
    """Per mark of one scenario: reserved as bars, allocated and peak as points joined by lines."""
    data = long[long["scenario"] == scenario]
    order = list(dict.fromkeys(data["x"]))
    # every mark keeps its label: at -45° neighbours do not touch, though their boxes overlap
    x = alt.X("x:N", sort=order, title=None).axis(
        labelAngle=-45, labelLimit=260, labelOverlap=False
    )
    names = [n for n in (*SERIES, "host rss") if n in set(data["series"])]
    color = alt.Color("series:N", scale=_scale(names), title=None)
    tooltip = [
        alt.Tooltip("label:N", title="step"),
        alt.Tooltip("event:N"),
        alt.Tooltip("series:N"),
        alt.Tooltip("MiB:Q", format=",.1f"),
    ]
    # bars start at 0; host RSS alone (CPU) is a line around ~1 GiB whose changes would vanish
    zero = (data["series"] == "reserved").any()
    y = alt.Y("MiB:Q", title="MiB", stack=None).axis(format=",.0f").scale(zero=bool(zero))
    bars = (
        alt.Chart(data[data["series"] == "reserved"])
        .mark_bar(opacity=0.7)
        .encode(x=x, y=y, color=color, tooltip=tooltip)
    )
    points = (
        alt.Chart(data[data["series"] != "reserved"])
        .mark_line(point=True)
        .encode(x=x, y=y, color=color, tooltip=tooltip)
    )
    what = "memory_stats" if zero else "host RSS"  # a CPU run has no memory_stats to draw
    chart = alt.layer(bars, points).properties(
        height=STEPS_HEIGHT, title=_title(f"{scenario}: {what} per step", why)
    )
    return _fit_x(chart)


def peaks_chart(peaks: pd.DataFrame, why: list[str]) -> alt.LayerChart:
    """Peak reserved behind peak allocated per scenario; the eager / compiled one-call peaks below."""
    order = list(dict.fromkeys(peaks["what"]))
    names = [n for n in PEAK_SERIES if n in set(peaks["series"])]
    color = alt.Color(
        "series:N", scale=alt.Scale(domain=names, range=[PEAK_COLORS[n] for n in names]), title=None
    )
    y = alt.Y("what:N", sort=order, title=None).axis(labelLimit=300)
    x = alt.X("MiB:Q", title="peak (MiB)", stack=None).axis(format=",.0f")
    tooltip = [
        alt.Tooltip("what:N"),
        alt.Tooltip("series:N"),
        alt.Tooltip("MiB:Q", format=",.1f"),
        alt.Tooltip("bytes:Q", format=","),
    ]
    # reserved ≥ allocated, so a wide light bar behind a narrow dark one shows both and the gap
    wide = peaks[peaks["series"] == "reserved"]
    narrow = peaks[peaks["series"] != "reserved"]
    back = alt.Chart(wide).mark_bar(size=18).encode(y=y, x=x, color=color, tooltip=tooltip)
    front = alt.Chart(narrow).mark_bar(size=9).encode(y=y, x=x, color=color, tooltip=tooltip)
    text = (
        alt.Chart(narrow)
        .mark_text(align="left", dx=4, fontSize=11, color="#333333")
        .encode(y=y, x=x, text=alt.Text("MiB:Q", format=",.0f"), tooltip=tooltip)
    )
    chart = alt.layer(back, front, text).properties(
        height=alt.Step(26), title=_title("Peak memory", why)
    )
    return _fit_x(chart)


def empty_cache_chart(rounds: pd.DataFrame, why: list[str]) -> alt.LayerChart:
    """Every timed round as a point, the median as a tick, per variant."""
    y = alt.Y("variant:N", title=None, sort=["never", "every step"])
    x = alt.X("per_step_ms:Q", title="ms per step (round time / steps)").scale(zero=True)
    tooltip = [
        alt.Tooltip("variant:N"),
        alt.Tooltip("round:Q"),
        alt.Tooltip("round_ms:Q", format=",.3f", title="round (ms)"),
        alt.Tooltip("per_step_ms:Q", format=",.3f", title="per step (ms)"),
    ]
    points = alt.Chart(rounds).mark_circle(size=70, opacity=0.7).encode(x=x, y=y, tooltip=tooltip)
    median = (
        alt.Chart(rounds)
        .mark_tick(color="black", thickness=2, size=30)
        .encode(
            x="median(per_step_ms):Q",
            y=y,
            tooltip=[
                alt.Tooltip("median(per_step_ms):Q", format=",.3f", title="median per step (ms)")
            ],
        )
    )
    chart = alt.layer(points, median).properties(
        height=alt.Step(44), title=_title("empty_cache() after every step vs never", why)
    )
    return _fit_x(chart)
