"""The three-clocks chart: each mode's median under each clock, IQR bars, flagged clocks marked."""

from __future__ import annotations

import altair as alt
import pandas as pd

from runtime_lab.fusion.report.charts import SIDE_LEGEND
from runtime_lab.fusion.report.clocks import AGREEMENT

CLOCK_COLORS = {"lab": "#333333", "torch.utils.benchmark": "#4c78a8", "triton.do_bench": "#f58518"}


def clocks_chart(clocks: pd.DataFrame) -> alt.LayerChart:
    """Median per clock per mode (bar from q1 to q3); a flagged clock drawn as a cross."""
    present = [c for c in CLOCK_COLORS if c in set(clocks["clock"])]
    present += sorted(set(clocks["clock"]) - set(present))
    color = alt.Color(
        "clock:N",
        scale=alt.Scale(domain=present, range=[CLOCK_COLORS.get(c, "#bab0ac") for c in present]),
        legend=alt.Legend(**SIDE_LEGEND),
    )
    spread = clocks["q3_ms"].max() / max(clocks["q1_ms"].min(), 1e-12)
    scale = alt.Scale(type="log") if spread > 20 else alt.Scale(zero=False, nice=False)
    order = list(dict.fromkeys(clocks["mode"]))
    y = alt.Y("mode:N", sort=order, title=None, axis=alt.Axis(labelLimit=320))
    offset = alt.YOffset("clock:N", sort=present)
    tip = [
        alt.Tooltip("mode:N"),
        alt.Tooltip("clock:N"),
        alt.Tooltip("median_ms:Q", format=".4f", title="median (ms)"),
        alt.Tooltip("iqr_ms:Q", format=".4f", title="IQR (ms)"),
        alt.Tooltip("ratio_to_lab:Q", format=".3f", title="ratio to the lab's median"),
        alt.Tooltip("allowed_pct:Q", format=".1f", title="allowed disagreement (%)"),
        alt.Tooltip("flagged:N"),
        alt.Tooltip("agreement:N", title="vs the lab"),
        alt.Tooltip("samples:Q"),
        alt.Tooltip("detail:N", title="what it times"),
    ]
    bars = (
        alt.Chart(clocks)
        .mark_rule(size=3, opacity=0.6)
        .encode(
            x=alt.X("q1_ms:Q", scale=scale, title="time per call (ms), median and IQR per clock"),
            x2="q3_ms:Q",
            y=y,
            yOffset=offset,
            color=color,
            tooltip=tip,
        )
    )
    # each point's shape is its row's own verdict (clock_rows: the flag's threshold), not a
    # second rule here that could disagree with the table
    points = (
        alt.Chart(clocks)
        .mark_point(size=110, strokeWidth=2, filled=True)
        .encode(
            x=alt.X("median_ms:Q", scale=scale),
            y=y,
            yOffset=offset,
            color=color,
            shape=alt.Shape(
                "agreement:N",
                scale=alt.Scale(domain=list(AGREEMENT), range=["circle", "cross", "triangle"]),
                title="vs the lab",
            ),
            tooltip=tip,
        )
    )
    return alt.layer(bars, points).properties(height=alt.Step(20))
