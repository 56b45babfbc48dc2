"""Allocator what-if charts: configurations A/B and memory outside the allocator (no torch)."""

from __future__ import annotations

import altair as alt
import pandas as pd


def config_chart(frame: pd.DataFrame) -> alt.Chart:
    """Reserved − allocated per step, one line per configuration."""
    return (
        alt.Chart(frame)
        .mark_line(point=True)
        .encode(
            x=alt.X("step:O", title="step of the sequence"),
            y=alt.Y("slack_mib:Q", title="reserved − allocated (MiB)"),
            color=alt.Color("config:N", title="allocator"),
            tooltip=[
                alt.Tooltip("config:N"),
                alt.Tooltip("step:O"),
                alt.Tooltip("shape:N"),
                alt.Tooltip("allocated_mib:Q", format=",.1f", title="allocated (MiB)"),
                alt.Tooltip("reserved_mib:Q", format=",.1f", title="reserved (MiB)"),
                alt.Tooltip("segments:Q"),
                alt.Tooltip("largest_free_mib:Q", format=",.1f", title="largest free block (MiB)"),
                alt.Tooltip("expandable_segments:Q", title="is_expandable segments"),
            ],
        )
        .properties(height=220)
    )


def outside_chart(frame: pd.DataFrame) -> alt.Chart:
    """Per step, the process's device memory stacked: PyTorch's reserved, then the rest."""
    long = frame.melt(
        id_vars=["step", "where"],
        value_vars=["reserved_mib", "outside_mib"],
        var_name="part",
        value_name="mib",
    )
    long["part"] = long["part"].map(
        {"reserved_mib": "PyTorch reserved", "outside_mib": "outside PyTorch's allocator"}
    )
    return (
        alt.Chart(long)
        .mark_bar()
        .encode(
            y=alt.Y("step:N", sort=list(frame["step"]), title=None, axis=alt.Axis(labelLimit=240)),
            x=alt.X("mib:Q", stack="zero", title="the fresh process's device memory (MiB)"),
            color=alt.Color("part:N", title=None),
            tooltip=[
                alt.Tooltip("step:N"),
                alt.Tooltip("part:N"),
                alt.Tooltip("mib:Q", format=",.1f", title="MiB"),
                alt.Tooltip("where:N"),
            ],
        )
        .properties(height=alt.Step(28))
    )
