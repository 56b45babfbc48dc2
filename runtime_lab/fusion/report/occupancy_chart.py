"""Fusion kernel resources → an Altair chart: achieved GB/s against theoretical occupancy."""

from __future__ import annotations

import altair as alt
import pandas as pd

from runtime_lab.fusion.report.charts import SIDE_LEGEND, ceiling_layers, mode_scale

LIMIT_SHAPES = ("circle", "square", "triangle-up", "diamond", "cross", "triangle-down")


def _tooltip() -> list[alt.Tooltip]:
    return [
        alt.Tooltip("mode:N"),
        alt.Tooltip("name:N", title="kernel"),
        alt.Tooltip("grid:N"),
        alt.Tooltip("block:N"),
        alt.Tooltip("registers_per_thread:Q", title="registers/thread"),
        alt.Tooltip("registers_source:N", title="registers from"),
        alt.Tooltip("spilled_registers:Q", title="spilled registers (Triton)"),
        alt.Tooltip("smem_bytes:Q", format=",", title="shared memory per block (bytes)"),
        alt.Tooltip("occupancy_pct:Q", format=".1f", title="theoretical occupancy %"),
        alt.Tooltip("limiting_resource:N", title="limited by"),
        alt.Tooltip("blocks_per_sm:Q", title="resident blocks per SM"),
        alt.Tooltip("profiler_occupancy_pct:Q", title="profiler's est. achieved occupancy %"),
        alt.Tooltip("waves:Q", format=".2f", title="waves (grid ÷ resident blocks)"),
        alt.Tooltip("us_per_launch:Q", format=".2f", title="µs per launch (profiler)"),
        alt.Tooltip("launches_per_call:Q", format=".3~g", title="launches per call"),
        alt.Tooltip("bytes_per_launch:Q", format=",", title="bytes per launch (bytes model)"),
        alt.Tooltip("gbps:Q", format=".1f", title="GB/s"),
        alt.Tooltip("triton_config:N", title="Triton config"),
    ]


def occupancy_chart(
    resources: pd.DataFrame, ceiling: float | None = None, source: str = "copy"
) -> alt.LayerChart:
    """One point per mode and kernel: its achieved GB/s (bytes model ÷ the profiler's time per
    launch) against its theoretical occupancy, coloured by mode, shaped by what limits it."""
    data = resources.dropna(subset=["occupancy_pct", "gbps"])
    limits = sorted(set(data["limiting_resource"]))
    points = (
        alt.Chart(data)
        .mark_point(filled=True, size=140, opacity=0.85)
        .encode(
            x=alt.X(
                "occupancy_pct:Q",
                title="theoretical occupancy (% of the SM's warps)",
                scale=alt.Scale(domain=[0, 100]),
            ),
            y=alt.Y("gbps:Q", title="achieved GB/s (bytes model ÷ profiler time per launch)"),
            color=alt.Color(
                "mode:N", scale=mode_scale(data["mode"]), legend=alt.Legend(**SIDE_LEGEND)
            ),
            shape=alt.Shape(
                "limiting_resource:N",
                title="limited by",
                scale=alt.Scale(
                    domain=limits,
                    range=[LIMIT_SHAPES[i % len(LIMIT_SHAPES)] for i in range(len(limits))],
                ),
                legend=alt.Legend(**SIDE_LEGEND),
            ),
            tooltip=_tooltip(),
        )
    )
    layers = [points] + (ceiling_layers(ceiling, "y", source) if ceiling else [])
    return alt.layer(*layers).properties(height=320)
