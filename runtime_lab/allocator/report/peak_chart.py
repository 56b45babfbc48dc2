"""The workload's one-call peaks per shape as an Altair chart: ideal, eager, compiled (no torch)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from runtime_lab.allocator.report.peak import SERIES

COLORS = {"ideal": "#bab0ac", "eager": "#e45756", "compiled": "#4c78a8"}


def peaks_chart(long: pd.DataFrame, title: str, why: list[str]) -> alt.LayerChart:
    """Per shape (in the sequence's order), three bars: the ideal (inputs + output), eager's and
    compiled's peak of one call with the inputs counted; each labelled with its × of the ideal."""
    order = list(dict.fromkeys(long["shape"]))
    y = alt.Y("shape:N", sort=order, title=None).axis(labelLimit=240)
    offset = alt.YOffset("series:N", sort=list(SERIES))
    x = alt.X("MiB:Q", title="peak of one call, inputs included (MiB)").axis(format=",.0f")
    color = alt.Color(
        "series:N",
        scale=alt.Scale(domain=list(SERIES), range=[COLORS[s] for s in SERIES]),
        title=None,
    ).legend(orient="top")
    tooltip = [
        alt.Tooltip("shape:N"),
        alt.Tooltip("series:N"),
        alt.Tooltip("MiB:Q", format=",.1f", title="peak, inputs included (MiB)"),
        alt.Tooltip("above_inputs_bytes:Q", format=",", title="above the inputs (bytes)"),
        alt.Tooltip("input_bytes:Q", format=",", title="inputs (bytes)"),
        alt.Tooltip("x_ideal:Q", format=".2f", title="× the ideal"),
    ]
    bars = alt.Chart(long).mark_bar().encode(y=y, yOffset=offset, x=x, color=color, tooltip=tooltip)
    text = (
        alt.Chart(long.assign(times=long["x_ideal"].map(lambda v: f"{v:.2f}×")))
        .mark_text(align="left", dx=4, fontSize=10, color="#333333")
        .encode(y=y, yOffset=offset, x=x, text="times:N", tooltip=tooltip)
    )
    heading = alt.TitleParams(title, subtitle=why, anchor="start", subtitleColor="#555555")
    chart = alt.layer(bars, text).properties(height=alt.Step(14), title=heading)
    return chart.properties(autosize=alt.AutoSizeParams(type="fit-x", contains="padding"))
