"""Tidy DataFrames → Altair charts (typed encodings, tooltips, layered marks). No torch here."""

from __future__ import annotations

import altair as alt
import pandas as pd

from runtime_lab.view import frames

CLOCK_RANGE = {"device": "#4c78a8", "host": "#f58518"}
STEADY, NOISY = "median", "median, noisy (IQR > 10 % of it)"
NOISY_COLOR = "#d62728"


def _clock_scale(samples: pd.DataFrame) -> alt.Scale:
    """Only the clocks present in the data appear in the legend."""
    present = [c for c in CLOCK_RANGE if c in set(samples["clock"])]
    return alt.Scale(domain=present, range=[CLOCK_RANGE[c] for c in present])


def timing_chart(samples: pd.DataFrame, summary: pd.DataFrame) -> alt.LayerChart:
    """Per-call times per label: every sample as a tick, the median as a bold mark, IQR as a bar.
    A noisy series' median is a red triangle, named in the legend: visible without a tooltip."""
    # device and host times differ by orders of magnitude (issuing vs running): log axis then
    both_clocks = samples["clock"].nunique() > 1
    y = alt.Y("label:N", title=None, axis=alt.Axis(labelLimit=320))
    offset = alt.YOffset("clock:N")
    x_scale = alt.Scale(type="log") if both_clocks else alt.Scale(zero=False, nice=False)
    colors = _clock_scale(samples)
    x_title = "time per call (ms, log)" if both_clocks else "time per call (ms)"
    shown = frames.downsample(samples, ["label", "clock"], "time_ms")
    if len(shown) < len(samples):
        x_title += f"; {len(shown):,} of {len(samples):,} samples drawn (evenly spaced + min/max)"
    ticks = (
        alt.Chart(shown)
        .mark_tick(opacity=0.45, thickness=1.5)
        .encode(
            x=alt.X("time_ms:Q", title=x_title, scale=x_scale),
            y=y,
            yOffset=offset,
            color=alt.Color("clock:N", scale=colors, title="clock"),
            tooltip=[
                alt.Tooltip("label:N"),
                alt.Tooltip("clock:N"),
                alt.Tooltip("sample:Q", title="call #"),
                alt.Tooltip("time_ms:Q", format=".4f"),
            ],
        )
    )
    summary_tip = [
        alt.Tooltip("label:N"),
        alt.Tooltip("clock:N"),
        alt.Tooltip("median_ms:Q", format=".4f", title="median (ms)"),
        alt.Tooltip("q1_ms:Q", format=".4f", title="q1 (ms)"),
        alt.Tooltip("q3_ms:Q", format=".4f", title="q3 (ms)"),
        alt.Tooltip("iqr_ms:Q", format=".4f", title="IQR (ms)"),
        alt.Tooltip("count:Q", title="samples"),
        alt.Tooltip("noisy:N", title="noisy (IQR > 10 %)"),
        alt.Tooltip("first_call_ms:Q", format=".3f", title="first call (ms, not in samples)"),
    ]
    iqr = (
        alt.Chart(summary)
        .mark_bar(height=6, opacity=0.35)
        .encode(
            x=alt.X("q1_ms:Q", scale=x_scale),
            x2="q3_ms:Q",
            y=y,
            yOffset=offset,
            color=alt.Color("clock:N", scale=colors),
            tooltip=summary_tip,
        )
    )
    median = (
        alt.Chart(summary)
        .transform_calculate(steadiness=f"datum.noisy ? '{NOISY}' : '{STEADY}'")
        .mark_point(size=120, filled=True, color="black")
        .encode(
            x=alt.X("median_ms:Q", scale=x_scale),
            y=y,
            yOffset=offset,
            shape=alt.Shape(
                "steadiness:N",
                scale=alt.Scale(domain=[STEADY, NOISY], range=["diamond", "triangle-up"]),
                title="median",
            ),
            fill=alt.Fill(
                "steadiness:N",
                scale=alt.Scale(domain=[STEADY, NOISY], range=["black", NOISY_COLOR]),
                title="median",
            ),
            stroke=alt.Stroke(
                "steadiness:N",
                scale=alt.Scale(domain=[STEADY, NOISY], range=["black", NOISY_COLOR]),
                legend=None,
            ),
            tooltip=summary_tip,
        )
    )
    return alt.layer(ticks, iqr, median).properties(height=alt.Step(28))
