"""Recompiles runs side by side: figures it leaves out, the overlaid charts (counts: no samples)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import pandas as pd

from runtime_lab.compare import charts as cc
from runtime_lab.recompiles.report import frames as rf
from runtime_lab.recompiles.report.figures import MODE_ORDER, figures
from runtime_lab.recompiles.result import RecompilesResult

IGNORED = ("recompile_limit.*.limit",)  # an input, the same in like runs


def samples(result: RecompilesResult) -> dict[str, tuple[float, ...]]:
    """None: graphs and recompiles are counts, compile time a sum over the compiles."""
    return {}


def _calls(result: RecompilesResult) -> pd.DataFrame:
    frame = rf.calls_frame(result)
    # a cache hit compiles nothing: 0 s on the chart, where the frame says None
    return frame.assign(compile_s=frame["compile_s"].fillna(0.0))


def charts(results: Sequence[tuple[str, RecompilesResult]]) -> list[tuple[str, Any]]:
    """Graphs per mode, compile seconds per call of the sequence, and the calls a stance ran eager
    or made fail (runs with a stance only), the run as colour."""
    runs = [name for name, _ in results]
    totals = cc.with_run(results, lambda r: rf.totals_frame(r, figures(r)))
    calls = cc.with_run(results, _calls)
    run = alt.Tooltip("run:N")
    totals_tip = [
        run,
        alt.Tooltip("mode:N"),
        alt.Tooltip("unique_graphs:Q", title="graphs"),
        alt.Tooltip("compiles:Q"),
        alt.Tooltip("recompiles:Q"),
        alt.Tooltip("cache_hits:Q", title="cache hits"),
        alt.Tooltip("compile_s:Q", format=".3f", title="compile (s)"),
    ]
    calls_tip = [
        run,
        alt.Tooltip("mode:N"),
        alt.Tooltip("label:N", title="call"),
        alt.Tooltip("event:N"),
        alt.Tooltip("compile_s:Q", format=".3f", title="compile (s)"),
        alt.Tooltip("call_s:Q", format=".3f", title="whole call (s)"),
        alt.Tooltip("reason:N", title="recompile reason"),
    ]
    order = list(MODE_ORDER)
    x_order = sorted(set(calls["call"])) if "call" in calls else []
    stance_tip = [
        run,
        alt.Tooltip("mode:N"),
        alt.Tooltip("stance:N"),
        alt.Tooltip("stance_eager:Q", title="ran eager by the stance"),
        alt.Tooltip("stance_failed:Q", title="raised by the stance"),
    ]
    turned = totals.assign(stance_turned=None)
    if "stance" in totals:  # a run without a stance has no bar, not a zero one
        has = totals["stance"].notna()
        both = totals.loc[has, "stance_eager"] + totals.loc[has, "stance_failed"]
        turned.loc[has, "stance_turned"] = both.astype(float)
    return cc.present(
        [
            (
                "Graphs per mode",
                cc.grouped_bars(
                    totals,
                    runs,
                    y="mode",
                    x="unique_graphs",
                    x_title="unique graphs compiled",
                    tooltip=totals_tip,
                    order=order,
                ),
            ),
            (
                "Compile seconds per call (0: a cache hit), by mode",
                cc.run_lines(
                    calls,
                    runs,
                    x="call",
                    y="compile_s",
                    dash="mode",
                    x_title="call of the sequence",
                    y_title="compile seconds in the call",
                    tooltip=calls_tip,
                    x_order=x_order,
                ),
            ),
            (
                "Calls after the first that the stance ran eager or made fail, by mode",
                cc.grouped_bars(
                    turned,
                    runs,
                    y="mode",
                    x="stance_turned",
                    x_title="calls the stance ran eager or made fail",
                    tooltip=stance_tip,
                    order=order,
                ),
            ),
        ]
    )
