"""Recompiles frames → Altair charts: compile time per call by mode, the limit gauge, steady state."""

from __future__ import annotations

import altair as alt
import pandas as pd

from runtime_lab.recompiles.report.figures import MODE_ORDER
from runtime_lab.recompiles.result import CUDAGRAPH_STATES, EVENTS
from runtime_lab.view import fmt

EVENT_COLORS = ("#4c78a8", "#e45756", "#54a24b", "#f58518", "#222222")
EVENT_SHAPES = ("circle", "triangle-down", "circle", "diamond", "cross")
STATUS = {"within": "#54a24b", "near": "#f58518", "hit": "#e45756"}
MODE_COLORS = ("#4c78a8", "#f58518", "#54a24b", "#b279a2", "#e45756", "#72b7b2", "#9d755d")
MODE_COLORS += ("#eeca3b",)  # one per mode in MODE_ORDER: a mode keeps its colour in every run
CUDAGRAPH_COLORS = ("#bab0ac", "#e45756", "#54a24b", "#f58518")  # warmup recorded replayed skipped
STEP = 64  # pixels per call on the x axis of the faceted chart (facets cannot stretch)
WIDTH = (560, 1000)
LEGEND = {"orient": "bottom", "columns": 5, "labelLimit": 300}


def fmt_seconds(value: float | None) -> str:
    if value is None or value != value:  # NaN: no compile on this call
        return ""
    return fmt.fmt_seconds(value)


def _event_scale(kind: str) -> alt.Scale:
    values = EVENT_COLORS if kind == "color" else EVENT_SHAPES
    return alt.Scale(domain=list(EVENTS), range=list(values))


def _call_tooltip() -> list[alt.Tooltip]:
    return [
        alt.Tooltip("mode:N"),
        alt.Tooltip("call:Q", title="call #"),
        alt.Tooltip("shape:N", title="shape asked"),
        alt.Tooltip("run_shape:N", title="shape run"),
        alt.Tooltip("dtype:N"),
        alt.Tooltip("event:N"),
        alt.Tooltip("compile_s:Q", format=".4f", title="compile (s)"),
        alt.Tooltip("call_s:Q", format=".4f", title="whole call (s)"),
        alt.Tooltip("compile_id:N", title="frame that ran it"),
        alt.Tooltip("reason:N", title="guard failure"),
        alt.Tooltip("guard_failure_count:Q", title="cached frames that failed"),
        alt.Tooltip("fx_cache:N", title="FX graph cache"),
        alt.Tooltip("steady_ms:Q", format=".4f", title="steady state (ms)"),
        alt.Tooltip("eager_ms:Q", format=".4f", title="eager (ms)"),
        alt.Tooltip("stance:N"),
        alt.Tooltip("cudagraph:N", title="CUDA graph"),
        alt.Tooltip("cudagraph_reason:N", title="CUDA graph: why"),
        alt.Tooltip("error:N"),
    ]


def _mode_colors(modes: list[str]) -> list[str]:
    colors = dict(zip(MODE_ORDER, MODE_COLORS, strict=True))
    spare = iter(("#bab0ac", "#79706e", "#d67195", "#ff9da6"))
    return [colors.get(m) or next(spare, "#333333") for m in modes]


def timeline_chart(calls: pd.DataFrame, modes: list[str]) -> alt.FacetChart:
    """Calls on x, compile seconds as bars, a marker on every call (▼ recompile), one row per
    mode. Cache hits have no bar: their marker sits on zero."""
    data = calls.assign(
        compile_bar=calls["compile_s"].fillna(0.0),
        compile_text=calls["compile_s"].map(fmt_seconds),
    )
    labels = list(dict.fromkeys(data.sort_values("call")["label"]))
    x = alt.X("label:N", sort=labels, title="call (position: shape asked)")
    x = x.axis(labelAngle=-40, labelLimit=160, labelOverlap=False)
    y = alt.Y("compile_bar:Q", title="compile (s)")
    bars = (
        alt.Chart()
        .mark_bar(opacity=0.75, width=alt.RelativeBandSize(0.6))
        .encode(
            x=x,
            y=y,
            color=alt.Color("event:N", scale=_event_scale("color"), legend=alt.Legend(**LEGEND)),
            tooltip=_call_tooltip(),
        )
    )
    marks = (
        alt.Chart()
        .mark_point(filled=True, size=90, opacity=1)
        .encode(
            x=x,
            y=y,
            color=alt.Color("event:N", scale=_event_scale("color")),
            shape=alt.Shape("event:N", scale=_event_scale("shape"), legend=None),
            tooltip=_call_tooltip(),
        )
    )
    seconds = (
        alt.Chart()
        .transform_filter("datum.compiled")
        .mark_text(dy=-12, fontSize=11, color="#333333")
        .encode(x=x, y=y, text="compile_text:N", tooltip=_call_tooltip())
    )
    width = min(WIDTH[1], max(WIDTH[0], STEP * len(labels)))
    return (
        alt.layer(bars, marks, seconds, data=data)
        .properties(width=width, height=110)
        .facet(
            row=alt.Row(
                "mode:N",
                sort=modes,
                title=None,
                header=alt.Header(labelAngle=0, labelAlign="left", labelFontWeight="bold"),
            )
        )
    )


def limit_chart(limits: pd.DataFrame) -> alt.LayerChart:
    """Compiles of the function against recompile_limit, per mode: green, orange near, red hit."""
    top = float(max(limits["recompile_limit"].max(), limits["compiles"].max())) + 1
    x_scale = alt.Scale(domain=[0, top], nice=False)
    y = alt.Y("mode:N", sort=list(limits["mode"]), title=None, axis=alt.Axis(labelLimit=200))
    tooltip = [
        alt.Tooltip("mode:N"),
        alt.Tooltip("compiles:Q"),
        alt.Tooltip("recompile_limit:Q", title="recompile_limit"),
        alt.Tooltip("fraction:Q", format=".0%", title="used"),
        alt.Tooltip("state:N"),
    ]
    room = (
        alt.Chart(limits)
        .mark_bar(color="#e8e8e8", height=18)
        .encode(
            x=alt.X(
                "recompile_limit:Q",
                scale=x_scale,
                title="compiles of the function",
                axis=alt.Axis(tickMinStep=1, format="d"),
            ),
            y=y,
            tooltip=tooltip,
        )
    )
    used = (
        alt.Chart(limits)
        .mark_bar(height=18)
        .encode(
            x=alt.X("compiles:Q", scale=x_scale),
            y=y,
            color=alt.Color(
                "status:N",
                scale=alt.Scale(domain=list(STATUS), range=list(STATUS.values())),
                legend=alt.Legend(orient="bottom", title="limit"),
            ),
            tooltip=tooltip,
        )
    )
    rule = (
        alt.Chart(limits)
        .mark_tick(color="#333333", thickness=3, size=26)
        .encode(x=alt.X("recompile_limit:Q", scale=x_scale), y=y, tooltip=tooltip)
    )
    text = (
        alt.Chart(limits)
        .mark_text(align="left", dx=6, fontSize=12)
        .encode(x=alt.X("recompile_limit:Q", scale=x_scale), y=y, text="label:N", tooltip=tooltip)
    )
    return alt.layer(room, used, rule, text).properties(height=alt.Step(34))


def steady_chart(calls: pd.DataFrame, modes: list[str]) -> alt.LayerChart:
    """Time per call once compiled, per mode, with plain eager on the same input (dashed)."""
    data = calls.dropna(subset=["steady_ms"])
    labels = list(dict.fromkeys(calls.sort_values("call")["label"]))
    x = alt.X("label:N", sort=labels, title="call (position: shape asked)")
    x = x.axis(labelAngle=-40, labelLimit=160, labelOverlap=False)
    y_scale = alt.Scale(type="log")
    lines = (
        alt.Chart(data)
        .mark_line(point=alt.OverlayMarkDef(size=50))
        .encode(
            x=x,
            y=alt.Y("steady_ms:Q", scale=y_scale, title="median ms per call (log)"),
            color=alt.Color(
                "mode:N",
                sort=modes,
                scale=alt.Scale(domain=modes, range=_mode_colors(modes)),
                legend=alt.Legend(orient="right", labelLimit=300),
            ),
            tooltip=_call_tooltip(),
        )
    )
    eager = calls.drop_duplicates("call").dropna(subset=["eager_ms"])
    reference = (
        alt.Chart(eager)
        .mark_line(color="#333333", strokeDash=[5, 4], point=alt.OverlayMarkDef(color="#333333"))
        .encode(
            x=x,
            y=alt.Y("eager_ms:Q", scale=y_scale),
            tooltip=[
                alt.Tooltip("shape:N"),
                alt.Tooltip("dtype:N"),
                alt.Tooltip("eager_ms:Q", format=".4f", title="eager ms per call"),
            ],
        )
    )
    return alt.layer(reference, lines).properties(height=360)


def cudagraph_chart(graphs: pd.DataFrame) -> alt.LayerChart:
    """The reduce-overhead what-if: per call what cudagraph trees did (warm-up, record, replay,
    skip), the CUDA graph's id beside its marker."""
    data = graphs.assign(
        label=[f"{c}: {s}" for c, s in zip(graphs["call"], graphs["shape"], strict=True)],
        graph_text=graphs["cuda_graph_id"].map(
            lambda g: "" if g != g or g is None else f"#{g:.0f}"
        ),
    )
    x = alt.X("label:N", sort=list(data.sort_values("call")["label"]), title="call")
    x = x.axis(labelAngle=-40, labelLimit=160, labelOverlap=False)
    y = alt.Y("cudagraph:N", sort=list(CUDAGRAPH_STATES), title=None)
    scale = alt.Scale(domain=list(CUDAGRAPH_STATES), range=list(CUDAGRAPH_COLORS))
    tooltip = [
        alt.Tooltip("call:Q", title="call #"),
        alt.Tooltip("shape:N"),
        alt.Tooltip("event:N", title="Dynamo"),
        alt.Tooltip("cudagraph:N", title="CUDA graph"),
        alt.Tooltip("cuda_graph_id:Q", title="graph id"),
        alt.Tooltip("why:N"),
        alt.Tooltip("steady_ms:Q", format=".4f", title="steady state (ms)"),
    ]
    points = (
        alt.Chart(data)
        .mark_point(filled=True, size=120)
        .encode(x=x, y=y, color=alt.Color("cudagraph:N", scale=scale, legend=None), tooltip=tooltip)
    )
    text = (
        alt.Chart(data)
        .mark_text(dy=-12, fontSize=11)
        .encode(x=x, y=y, text="graph_text:N", tooltip=tooltip)
    )
    return alt.layer(points, text).properties(height=alt.Step(34))
