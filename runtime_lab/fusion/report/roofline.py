"""The roofline: each mode's achieved TFLOP/s at its arithmetic intensity, under both ceilings."""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd

from runtime_lab.fusion.report.charts import CEILING_COLOR, mode_scale
from runtime_lab.fusion.report.figures import ModeFigures
from runtime_lab.fusion.result import FusionResult

ROOF_COLOR = "#555555"


def roofline_frame(result: FusionResult, figures: Sequence[ModeFigures]) -> pd.DataFrame:
    """One row per timed mode: FLOPs per byte of its bytes model, achieved TFLOP/s and GB/s."""
    bytes_of = {m.mode: m.bytes_moved for m in result.modes}
    rows = [
        {
            "mode": f.mode,
            "intensity": f.intensity,
            "achieved_tflops": f.achieved_tflops,
            "achieved_gbps": f.achieved_gbps,
            "bytes_per_call": bytes_of[f.mode],
            "steady_state_ms": f.steady_state_ms,
        }
        for f in figures
        if f.achieved_tflops and f.intensity
    ]
    return pd.DataFrame(rows, columns=list(_COLUMNS))


_COLUMNS = (
    "mode",
    "intensity",
    "achieved_tflops",
    "achieved_gbps",
    "bytes_per_call",
    "steady_state_ms",
)


def roofs_frame(
    points: pd.DataFrame, memory_gbps: float | None, compute_tflops: float | None
) -> pd.DataFrame:
    """The roof's segments over the points' range: memory (TFLOP/s = GB/s × FLOP/B ÷ 1000)
    up to the ridge, then flat at the compute ceiling."""
    low = float(points["intensity"].min()) / 4
    high = float(points["intensity"].max()) * 4
    rows = []
    ridge = compute_tflops * 1e3 / memory_gbps if memory_gbps and compute_tflops else None
    if memory_gbps:
        top = min(high, ridge) if ridge else high
        top = max(top, low * 1.01)
        for x in (low, top):
            rows.append({"roof": "memory", "intensity": x, "tflops": memory_gbps * x / 1e3})
    if compute_tflops:
        start = max(low, ridge) if ridge else low
        for x in (start, max(high, start * 4)):
            rows.append({"roof": "compute", "intensity": x, "tflops": compute_tflops})
    return pd.DataFrame(rows, columns=["roof", "intensity", "tflops"])


def roofline_chart(
    points: pd.DataFrame, roofs: pd.DataFrame, peak_tflops: float | None = None
) -> alt.LayerChart:
    """Log–log: FLOP/byte across, TFLOP/s up; the measured roofs solid, the datasheet dashed."""
    x = alt.X("intensity:Q", scale=alt.Scale(type="log"), title="arithmetic intensity (FLOP/byte)")
    y = alt.Y("achieved_tflops:Q", scale=alt.Scale(type="log"), title="achieved TFLOP/s")
    order = list(points["mode"])
    tip = [
        alt.Tooltip("mode:N"),
        alt.Tooltip("achieved_tflops:Q", format=".3~r", title="TFLOP/s"),
        alt.Tooltip("achieved_gbps:Q", format=".4~r", title="GB/s"),
        alt.Tooltip("intensity:Q", format=".3~r", title="FLOP/byte (bytes model)"),
        alt.Tooltip("steady_state_ms:Q", format=".4f", title="median ms per call"),
    ]
    dots = (
        alt.Chart(points)
        .mark_point(filled=True, size=120)
        .encode(x=x, y=y, color=alt.Color("mode:N", scale=mode_scale(order)), tooltip=tip)
    )
    layers = [dots]
    if not roofs.empty:
        line = alt.Chart(roofs).mark_line(color=ROOF_COLOR, size=2)
        layers.append(
            line.encode(
                x="intensity:Q",
                y="tflops:Q",
                detail="roof:N",
                tooltip=[alt.Tooltip("roof:N"), alt.Tooltip("tflops:Q", format=".3~r")],
            )
        )
    if peak_tflops:
        peak = pd.DataFrame({"tflops": [peak_tflops], "label": [f"datasheet {peak_tflops:g}"]})
        rule = alt.Chart(peak).mark_rule(color=CEILING_COLOR, strokeDash=[6, 4])
        layers.append(rule.encode(y="tflops:Q", tooltip=["label:N"]))
    return alt.layer(*layers).properties(height=320)
