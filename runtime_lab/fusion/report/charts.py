"""Fusion frames → Altair charts: kernel time, compile phases, bandwidth vs ceiling, size sweep."""

from __future__ import annotations

import altair as alt
import pandas as pd

from runtime_lab.fusion.info import FUSION_MODES
from runtime_lab.fusion.report.frames import PHASE_ORDER
from runtime_lab.view.fmt import fmt_seconds

MODE_COLORS = ("#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b", "#b279a2", "#9d755d")
PHASE_COLORS = ("#4c78a8", "#72b7b2", "#f58518", "#e45756", "#b279a2", "#bab0ac")
CEILING_COLOR = "#333333"
# two columns: three of CUDA kernel names (~45 characters) ran past a 940 px column and were
# clipped (H100 screenshot, 2026-12-05)
LEGEND = {"orient": "bottom", "columns": 2, "labelLimit": 360}
# with width="stretch" a chart's height includes its legend: beside the plot, not under it
SIDE_LEGEND = {"orient": "right", "labelLimit": 360}


def mode_scale(modes) -> alt.Scale:
    """The same colour for a mode in every chart, listing only the modes present."""
    present = [m for m in FUSION_MODES if m in set(modes)]
    present += sorted(set(modes) - set(present))
    colors = dict(zip(FUSION_MODES, MODE_COLORS, strict=True))
    return alt.Scale(domain=present, range=[colors.get(m, "#bab0ac") for m in present])


def kernel_chart(kernels: pd.DataFrame, order: list[str]) -> alt.LayerChart:
    """Time per call of each mode, stacked by kernel, with the launches per call at the bar end;
    a training step's kernels (a `bar` column: "eager · forward") one bar per mode and pass."""
    bar = "bar" if "bar" in kernels else "mode"
    y = alt.Y(f"{bar}:N", sort=order, title=None, axis=alt.Axis(labelLimit=320))
    bars = (
        alt.Chart(kernels)
        .mark_bar()
        .encode(
            x=alt.X("total_us:Q", title="kernel time per call (µs)", stack="zero"),
            y=y,
            color=alt.Color("kernel:N", title="kernel", legend=alt.Legend(**LEGEND)),
            order=alt.Order("total_us:Q", sort="descending"),
            tooltip=[
                alt.Tooltip(f"{bar}:N", title="mode"),
                alt.Tooltip("name:N", title="kernel"),
                alt.Tooltip("calls_per_run:Q", format=".3~g", title="launches per call"),
                alt.Tooltip("total_us:Q", format=".2f", title="µs per call"),
                alt.Tooltip("mean_us:Q", format=".2f", title="µs per launch"),
                alt.Tooltip("grid:N"),
                alt.Tooltip("block:N"),
                alt.Tooltip("registers:Q", title="registers/thread"),
                alt.Tooltip("stream:N"),
            ],
        )
    )
    totals = (
        alt.Chart(kernels)
        .transform_aggregate(total_us="sum(total_us)", launches="sum(calls_per_run)", groupby=[bar])
        .transform_calculate(
            label="format(datum.launches, '.3~g') + (datum.launches == 1 ? ' kernel' : ' kernels')"
            " + ' · ' + format(datum.total_us, '.4~r') + ' µs'"
        )
        .mark_text(align="left", dx=5, fontSize=12)
        .encode(
            x="total_us:Q",
            y=y,
            text="label:N",
            tooltip=[
                alt.Tooltip(f"{bar}:N", title="mode"),
                alt.Tooltip("launches:Q", format=".3~g", title="launches per call"),
                alt.Tooltip("total_us:Q", format=".2f", title="µs per call, all kernels"),
            ],
        )
    )
    return alt.layer(bars, totals).properties(height=alt.Step(34))


def compile_chart(phases: pd.DataFrame) -> alt.LayerChart:
    """First-call seconds per mode and scenario, stacked by compile phase; totals as labels
    because a warm call (~1 ms) is invisible beside a cold compile (seconds) on a linear axis."""
    measured = phases.dropna(subset=["first_call_s"])  # an unmeasured row has no bar to draw
    data = measured.assign(row=measured["mode"] + " · " + measured["scenario"])
    data["rank"] = data["phase"].map(PHASE_ORDER.index)
    rows = list(dict.fromkeys(data["row"]))
    totals = data.drop_duplicates("row").assign(label=lambda d: d["first_call_s"].map(fmt_seconds))
    top = float(totals["first_call_s"].max()) if not totals.empty else 1.0
    x_scale = alt.Scale(domain=[0, top * 1.15], nice=False)
    y = alt.Y("row:N", sort=rows, title=None, axis=alt.Axis(labelLimit=320))
    bars = (
        alt.Chart(data)
        .mark_bar()
        .encode(
            x=alt.X("seconds:Q", title="first call (s)", stack="zero", scale=x_scale),
            y=y,
            color=alt.Color(
                "phase:N",
                scale=alt.Scale(domain=list(PHASE_ORDER), range=list(PHASE_COLORS)),
                legend=alt.Legend(orient="bottom"),
            ),
            order=alt.Order("rank:Q"),
            tooltip=[
                alt.Tooltip("mode:N"),
                alt.Tooltip("scenario:N"),
                alt.Tooltip("phase:N"),
                alt.Tooltip("seconds:Q", format=".4f", title="phase (s)"),
                alt.Tooltip("first_call_s:Q", format=".4f", title="whole first call (s)"),
                alt.Tooltip("compiles:Q"),
                alt.Tooltip("fx_cache_hits:Q", title="FX cache hits"),
                alt.Tooltip("fx_cache_misses:Q", title="FX cache misses"),
                alt.Tooltip("aot_cache_hits:Q", title="AOT cache hits"),
                alt.Tooltip("aot_cache_misses:Q", title="AOT cache misses"),
                alt.Tooltip("detail:N"),
            ],
        )
    )
    labels = (
        alt.Chart(totals)
        .mark_text(align="left", dx=5, fontSize=12)
        .encode(
            x=alt.X("first_call_s:Q", scale=x_scale),
            y=y,
            text="label:N",
            tooltip=[
                alt.Tooltip("mode:N"),
                alt.Tooltip("scenario:N"),
                alt.Tooltip("first_call_s:Q", format=".4f", title="whole first call (s)"),
                alt.Tooltip("compiles:Q"),
            ],
        )
    )
    return alt.layer(bars, labels).properties(height=alt.Step(30))


def _ceiling_name(source: str) -> str:
    return f"{source} ceiling"


def ceiling_layers(ceiling: float, channel: str, source: str = "copy") -> list[alt.Chart]:
    """A dashed rule at the ceiling with its label (channel: the GB/s axis, x or y)."""
    name = _ceiling_name(source)
    frame = pd.DataFrame({"ceiling_gbps": [ceiling], "label": [f"{name} {ceiling:.3g} GB/s"]})
    field = alt.X if channel == "x" else alt.Y
    tip = [alt.Tooltip("ceiling_gbps:Q", format=".1f", title=f"{name} (GB/s)")]
    rule = (
        alt.Chart(frame)
        .mark_rule(color=CEILING_COLOR, strokeDash=[6, 4], size=2)
        .encode(**{channel: field("ceiling_gbps:Q")}, tooltip=tip)
    )
    if channel == "x":
        text = alt.Chart(frame).mark_text(align="right", dx=-4, dy=-8, color=CEILING_COLOR)
        text = text.encode(x="ceiling_gbps:Q", y=alt.value(0), text="label:N", tooltip=tip)
    else:
        text = alt.Chart(frame).mark_text(align="left", dx=4, dy=-7, color=CEILING_COLOR)
        text = text.encode(y="ceiling_gbps:Q", x=alt.value(0), text="label:N", tooltip=tip)
    return [rule, text]


def roofline_chart(
    modes: pd.DataFrame, ceiling: float | None, source: str = "copy", why: str | None = None
) -> alt.LayerChart:
    """Achieved GB/s per mode (bytes model / median time) against the best measured ceiling;
    `why`: a line under the chart saying why a bar reads above the ceiling."""
    data = modes[modes["achieved_gbps"].notna()]
    order = list(data["mode"])
    y = alt.Y("mode:N", sort=order, title=None, axis=alt.Axis(labelLimit=320))
    x = alt.X("achieved_gbps:Q", title="achieved GB/s (bytes model ÷ median time)")
    tip = [
        alt.Tooltip("mode:N"),
        alt.Tooltip("achieved_gbps:Q", format=".1f", title="GB/s"),
        alt.Tooltip("ceiling_pct:Q", format=".0f", title=f"% of {_ceiling_name(source)}"),
        alt.Tooltip("transfers_per_element:Q", title="element transfers (bytes model)"),
        alt.Tooltip("bytes_per_call:Q", format=",", title="bytes per call"),
        alt.Tooltip("steady_state_ms:Q", format=".4f", title="median ms per call"),
    ]
    bars = (
        alt.Chart(data)
        .mark_bar()
        .encode(
            x=x,
            y=y,
            color=alt.Color("mode:N", scale=mode_scale(order), legend=None),
            tooltip=tip,
        )
    )
    label = "format(datum.achieved_gbps, '.3~r') + ' GB/s'"
    if ceiling:
        label += " + ' · ' + format(datum.ceiling_pct, '.0f') + ' %'"
    text = (
        alt.Chart(data)
        .transform_calculate(label=label)
        .mark_text(align="left", dx=5, fontSize=12)
        .encode(x="achieved_gbps:Q", y=y, text="label:N", tooltip=tip)
    )
    layers = [bars, text] + (ceiling_layers(ceiling, "x", source) if ceiling else [])
    chart = alt.layer(*layers).properties(height=alt.Step(34))
    if why:
        caption = alt.TitleParams(
            why, orient="bottom", anchor="start", fontSize=11, fontWeight="normal", limit=900
        )
        chart = chart.properties(title=caption)
    return chart


def _log_x(sweep: pd.DataFrame) -> alt.X:
    """Elements on a log axis, ticked at the swept sizes only."""
    return alt.X(
        "elements:Q",
        scale=alt.Scale(type="log", nice=False, padding=16),
        axis=alt.Axis(
            values=sorted(set(sweep["elements"].tolist())),
            labelExpr="format(sqrt(datum.value), 'd') + '²'",
        ),
        title="elements (log), ticked at the swept shapes side²",
    )


def _sweep_tooltip() -> list[alt.Tooltip]:
    return [
        alt.Tooltip("mode:N"),
        alt.Tooltip("side:Q", title="side (shape side×side)"),
        alt.Tooltip("elements:Q", format=","),
        alt.Tooltip("median_ms:Q", format=".4f", title="median ms per call"),
        alt.Tooltip("iqr_ms:Q", format=".4f", title="IQR (ms)"),
        alt.Tooltip("bytes_moved:Q", format=",", title="bytes per call"),
        alt.Tooltip("gbps:Q", format=".1f", title="GB/s"),
        alt.Tooltip("compiled:N", title="compiled (fresh: per size; reuse: one function)"),
        alt.Tooltip("kernel:N", title="kernel that served it"),
    ]


def _sweep_marks() -> dict:
    """A line per mode and way of compiling (dashed: one function reused over the sizes), and a
    point's shape for the kernel that served it (static, dynamic, or none: eager)."""
    return {
        "detail": "line:N",
        "strokeDash": alt.StrokeDash(
            "compiled:N",
            scale=alt.Scale(domain=["—", "fresh", "reuse"], range=[[1, 0], [1, 0], [6, 3]]),
            legend=alt.Legend(title="compiled", orient="bottom"),
        ),
        "shape": alt.Shape(
            "kernel:N",
            scale=alt.Scale(
                domain=["—", "static", "dynamic"], range=["circle", "square", "diamond"]
            ),
            legend=alt.Legend(title="kernel", orient="bottom"),
        ),
    }


def sweep_time_chart(sweep: pd.DataFrame) -> alt.Chart:
    """Time per call against size, log-log: flat where launches dominate, slope 1 once bandwidth does."""
    return (
        alt.Chart(sweep)
        .mark_line(point=alt.OverlayMarkDef(size=60, filled=True))
        .encode(
            x=_log_x(sweep),
            y=alt.Y("median_ms:Q", scale=alt.Scale(type="log"), title="median ms per call (log)"),
            color=alt.Color(
                "mode:N", scale=mode_scale(sweep["mode"]), legend=alt.Legend(**SIDE_LEGEND)
            ),
            tooltip=_sweep_tooltip(),
            **_sweep_marks(),
        )
        .properties(height=300)
    )


def sweep_gbps_chart(
    sweep: pd.DataFrame, ceiling: float | None, source: str = "copy"
) -> alt.LayerChart:
    """Achieved GB/s against size, with the measured ceiling the fused kernel can approach."""
    lines = (
        alt.Chart(sweep)
        .mark_line(point=alt.OverlayMarkDef(size=60, filled=True))
        .encode(
            x=_log_x(sweep),
            y=alt.Y("gbps:Q", title="achieved GB/s"),
            color=alt.Color(
                "mode:N", scale=mode_scale(sweep["mode"]), legend=alt.Legend(**SIDE_LEGEND)
            ),
            tooltip=_sweep_tooltip(),
            **_sweep_marks(),
        )
    )
    layers = [lines] + (ceiling_layers(ceiling, "y", source) if ceiling else [])
    return alt.layer(*layers).properties(height=300)
