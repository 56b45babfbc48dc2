"""Runs overlaid: tidy frames stacked with a run column, and charts with the run as colour."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import altair as alt
import pandas as pd

# the baseline first, in the lab's blue; the others in colours that stay apart for most eyes
RUN_COLORS = ("#4c78a8", "#e45756", "#54a24b", "#f58518", "#b279a2", "#9d755d")
LEGEND = {"orient": "right", "labelLimit": 240}


def with_run(
    results: Sequence[tuple[str, Any]], frame: Callable[[Any], pd.DataFrame]
) -> pd.DataFrame:
    """One experiment frame per run, stacked long-form with a leading `run` column."""
    parts = [frame(result).assign(run=label) for label, result in results]
    parts = [p for p in parts if not p.empty]
    if not parts:
        return pd.DataFrame(columns=["run"])
    stacked = pd.concat(parts, ignore_index=True)
    return stacked[["run", *[c for c in stacked.columns if c != "run"]]]


def run_color(runs: Sequence[str]) -> alt.Color:
    """The same colour for a run in every chart of one comparison, in the runs' order."""
    runs = list(runs)
    scale = alt.Scale(domain=runs, range=list(RUN_COLORS[: len(runs)]))
    return alt.Color("run:N", scale=scale, title="run", legend=alt.Legend(**LEGEND))


def _y(field: str, order: Sequence[str]) -> alt.Y:
    return alt.Y(f"{field}:N", sort=list(order), title=None, axis=alt.Axis(labelLimit=320))


def _order(data: pd.DataFrame, field: str, preferred: Sequence[str] = ()) -> list[str]:
    seen = list(dict.fromkeys(data[field].astype(str)))
    return [v for v in preferred if v in seen] + [v for v in seen if v not in preferred]


def spread_points(
    data: pd.DataFrame,
    runs: Sequence[str],
    *,
    y: str,
    x: str,
    low: str,
    high: str,
    x_title: str,
    tooltip: list[alt.Tooltip],
    order: Sequence[str] = (),
) -> alt.LayerChart | None:
    """A median dot per category and run with its IQR as a bar, runs side by side, log x
    (an H200 and a CPU differ by orders of magnitude); None when no run has the figure."""
    data = data.dropna(subset=[x]) if x in data else data.iloc[0:0]
    data = data[data[x] > 0] if not data.empty else data
    if data.empty:
        return None
    scale = alt.Scale(type="log")
    base = alt.Chart(data).encode(
        y=_y(y, _order(data, y, order)), yOffset=alt.YOffset("run:N", sort=list(runs))
    )
    color = run_color(runs)
    iqr = base.mark_rule(size=3, opacity=0.6).encode(
        x=alt.X(f"{low}:Q", scale=scale, title=x_title),
        x2=f"{high}:Q",
        color=color,
        tooltip=tooltip,
    )
    dots = base.mark_point(filled=True, size=90).encode(
        x=alt.X(f"{x}:Q", scale=scale), color=color, tooltip=tooltip
    )
    return alt.layer(iqr, dots).properties(height=alt.Step(18))


def grouped_bars(
    data: pd.DataFrame,
    runs: Sequence[str],
    *,
    y: str,
    x: str,
    x_title: str,
    tooltip: list[alt.Tooltip],
    order: Sequence[str] = (),
) -> alt.Chart | None:
    """One bar per category and run, runs side by side; None when no run has the figure."""
    data = data.dropna(subset=[x]) if x in data else data.iloc[0:0]
    if data.empty:
        return None
    return (
        alt.Chart(data)
        .mark_bar()
        .encode(
            x=alt.X(f"{x}:Q", title=x_title),
            y=_y(y, _order(data, y, order)),
            yOffset=alt.YOffset("run:N", sort=list(runs)),
            color=run_color(runs),
            tooltip=tooltip,
        )
        .properties(height=alt.Step(16))
    )


def run_lines(
    data: pd.DataFrame,
    runs: Sequence[str],
    *,
    x: str,
    y: str,
    dash: str,
    x_title: str,
    y_title: str,
    tooltip: list[alt.Tooltip],
    detail: str | None = None,
    x_order: Sequence[str] | None = None,
) -> alt.Chart | None:
    """A line per run and `dash` series along an ordinal x, points on every value; `detail`
    breaks the lines where one group ends (a scenario), so unrelated steps are not joined."""
    data = data.dropna(subset=[y]) if y in data else data.iloc[0:0]
    if data.empty:
        return None
    sort = list(x_order) if x_order is not None else _order(data, x)
    encoding: dict[str, Any] = {
        "x": alt.X(
            f"{x}:O", sort=sort, title=x_title, axis=alt.Axis(labelAngle=-40, labelLimit=220)
        ),
        "y": alt.Y(f"{y}:Q", title=y_title),
        "color": run_color(runs),
        "strokeDash": alt.StrokeDash(f"{dash}:N", legend=alt.Legend(**LEGEND)),
        "tooltip": tooltip,
    }
    if detail:
        encoding["detail"] = alt.Detail(f"{detail}:N")
    chart = alt.Chart(data).mark_line(point=alt.OverlayMarkDef(size=50, filled=True))
    return chart.encode(**encoding).properties(height=320)


def present(charts: Sequence[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """The (title, chart) pairs that have a chart: a figure no run recorded draws nothing."""
    return [(title, chart) for title, chart in charts if chart is not None]
