"""Allocator runs side by side: figures it leaves out, their raw samples, the overlaid charts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import pandas as pd

from runtime_lab.allocator.report import frames as af
from runtime_lab.allocator.result import SCENARIOS, AllocatorResult
from runtime_lab.compare import charts as cc

IGNORED: tuple[str, ...] = ()


def samples(result: AllocatorResult) -> dict[str, tuple[float, ...]]:
    """The raw samples behind each figure that is a median of them."""
    e = result.empty_cache
    return {"empty_cache_call_ms": e.call_ms} if e and e.call_ms else {}


def _steps(result: AllocatorResult) -> pd.DataFrame:
    """Peak and reserved at each mark (CUDA only: the CPU has no caching allocator to ask)."""
    frame = af.steps_long(af.steps_frame(result))
    frame = frame[frame["series"].isin(("peak", "reserved"))]
    return frame.assign(mark=frame["scenario"] + " · " + frame["x"])


def _mark_order(data: pd.DataFrame) -> list[str]:
    """Scenarios in the lab's order, each one's marks in run order (x starts with its number)."""
    if data.empty:
        return []
    rank = {s: i for i, s in enumerate(SCENARIOS)}
    pairs = set(zip(data["scenario"], data["x"], strict=True))
    ranked = sorted(pairs, key=lambda p: (rank.get(p[0], len(rank)), p[0], p[1]))
    return [f"{scenario} · {x}" for scenario, x in ranked]


def charts(results: Sequence[tuple[str, AllocatorResult]]) -> list[tuple[str, Any]]:
    """Peak and reserved MiB per step of every scenario, the run as colour."""
    runs = [name for name, _ in results]
    steps = cc.with_run(results, _steps)
    tip = [
        alt.Tooltip("run:N"),
        alt.Tooltip("scenario:N"),
        alt.Tooltip("label:N", title="step"),
        alt.Tooltip("event:N"),
        alt.Tooltip("series:N"),
        alt.Tooltip("MiB:Q", format=",.1f"),
    ]
    chart = cc.run_lines(
        steps,
        runs,
        x="mark",
        y="MiB",
        dash="series",
        x_title="scenario · step",
        y_title="MiB (memory_stats)",
        tooltip=tip,
        detail="scenario",
        x_order=_mark_order(steps),
    )
    return cc.present([("Peak and reserved per step (CUDA runs)", chart)])
