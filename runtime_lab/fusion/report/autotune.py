"""Fusion report: max-autotune's choices per GEMM or template, the winner, Triton vs cuBLAS."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import altair as alt
import pandas as pd

from runtime_lab.fusion.result import AutotuneOp, FusionResult
from runtime_lab.glossary.ratio import words

NEEDS = "Autotune choices need CUDA and a max-autotune mode."
NOT_RECORDED = "autotune choices not recorded (a run from before they were, or a failed first call)"
CHOICES_TITLE = "Autotune choices: every candidate Inductor benchmarked, per op (fastest first)"
OPS_TITLE = "Autotune per op: the winner, best Triton vs best extern (cuBLAS), autotune time"
CHART_TITLE = "Autotune: benchmark time per choice, per op (the winner outlined)"
CONFIG_KEYS = ("BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M", "num_stages", "num_warps")
FIELD = re.compile(r"(\w+)=('[^']*'|[^,\s]+)")
KIND_COLORS = {"extern": "#4c78a8", "triton": "#f58518", "other": "#72b7b2"}
# an op of the same shapes was benchmarked before: by an earlier job, or earlier in this compile
# (swiglu_mlp's gate and up projections are one benchmark)
CACHED = "times from Inductor's autotune cache: an op of the same shapes was benchmarked before"
CHOICE_COLUMNS = [
    "mode",
    "op",
    "rank",
    "choice",
    "kind",
    "time_ms",
    "winner",
    "pct_of_winner",
    *CONFIG_KEYS,
    "config",
    "benchmarked",
]


@dataclass(frozen=True)
class AutotuneViews:
    tables: tuple[tuple[str, pd.DataFrame], ...] = ()
    charts: tuple[tuple[str, alt.TopLevelMixin], ...] = ()
    notes: tuple[str, ...] = ()


def config_fields(config: str) -> dict[str, str]:
    """A choice's description as Inductor writes it ("BLOCK_K=64, …, num_warps=8"), by key."""
    return {key: value for key, value in FIELD.findall(config)}


def tuned_ops(result: FusionResult) -> list[tuple[str, AutotuneOp]]:
    """(mode, op) of every op a mode autotuned, in the order compiled."""
    return [(m.mode, op) for m in result.modes if m.autotune for op in m.autotune.ops]


def choices_frame(result: FusionResult) -> pd.DataFrame:
    """One row per mode, op and choice, fastest first: its time, its share of the winner's
    speed (the winner's time ÷ its time, as Inductor prints it), kind and config."""
    rows = []
    for mode, op in tuned_ops(result):
        best = next((c.time_ms for c in op.choices if c.winner), None)
        for rank, c in enumerate(op.choices, start=1):
            fields = config_fields(c.config)
            rows.append(
                {
                    "mode": mode,
                    "op": op.op,
                    "rank": rank,
                    "choice": c.choice,
                    "kind": c.kind,
                    "time_ms": c.time_ms,
                    "winner": c.winner,
                    "pct_of_winner": 100 * best / c.time_ms if best and c.time_ms else None,
                    **{key: fields.get(key) for key in CONFIG_KEYS},
                    "config": c.config,
                    "benchmarked": op.benchmarked,
                }
            )
    return pd.DataFrame(rows, columns=CHOICE_COLUMNS)


def _best(op: AutotuneOp, kind: str):
    timed = [c for c in op.choices if c.kind == kind and c.time_ms is not None]
    return min(timed, key=lambda c: c.time_ms) if timed else None


def op_row(mode: str, op: AutotuneOp) -> dict[str, Any]:
    """One op's figures: winner, best Triton and best extern choice, their ratio, seconds."""
    winner = next((c for c in op.choices if c.winner), None)
    triton, extern = _best(op, "triton"), _best(op, "extern")
    ratio = triton.time_ms / extern.time_ms if triton and extern and extern.time_ms else None
    return {
        "mode": mode,
        "op": op.op,
        "choices": len(op.choices),
        "winner": winner.choice if winner else None,
        "winner_kind": winner.kind if winner else None,
        "winner_ms": winner.time_ms if winner else None,
        "best_triton": triton.choice if triton else None,
        "best_triton_ms": triton.time_ms if triton else None,
        "best_extern": extern.choice if extern else None,
        "best_extern_ms": extern.time_ms if extern else None,
        "triton_vs_extern": ratio,
        "triton_vs_extern_words": ratio_words(ratio),
        "autotune_s": op.autotune_s,
        "precompile_s": op.precompile_s,
        "benchmarked": op.benchmarked,
    }


def ratio_words(ratio: float | None) -> str:
    """The best Triton choice's time ÷ the best extern's, in words."""
    if ratio is None:
        return "—"
    said = words(ratio, "ms", "lower")
    return "as fast as best extern" if said == "1×" else f"best Triton {said} than best extern"


def ops_frame(result: FusionResult) -> pd.DataFrame:
    """One row per mode and autotuned op (op_row)."""
    rows = [op_row(mode, op) for mode, op in tuned_ops(result)]
    columns = list(op_row("", AutotuneOp("")).keys())
    return pd.DataFrame(rows, columns=columns)


def choices_chart(frame: pd.DataFrame) -> alt.FacetChart:
    """A bar per choice, fastest on top, coloured by kind; the winner outlined; a panel per op."""
    data = frame.dropna(subset=["time_ms"]).assign(panel=lambda f: f["mode"] + " · " + f["op"])
    bars = (
        alt.Chart(data)
        .mark_bar()
        .encode(
            x=alt.X("time_ms:Q", title="benchmark time (ms)"),
            y=alt.Y("choice:N", sort=alt.EncodingSortField("time_ms"), title=None),
            color=alt.Color(
                "kind:N",
                title="kind",
                scale=alt.Scale(domain=list(KIND_COLORS), range=list(KIND_COLORS.values())),
                legend=alt.Legend(orient="right"),
            ),
            opacity=alt.condition("datum.winner", alt.value(1.0), alt.value(0.55)),
            stroke=alt.condition("datum.winner", alt.value("#000000"), alt.value(None)),
            strokeWidth=alt.condition("datum.winner", alt.value(2), alt.value(0)),
            tooltip=[
                alt.Tooltip("op:N"),
                alt.Tooltip("choice:N"),
                alt.Tooltip("kind:N"),
                alt.Tooltip("time_ms:Q", format=".4f", title="ms"),
                alt.Tooltip("pct_of_winner:Q", format=".1f", title="% of the winner's speed"),
                alt.Tooltip("winner:N"),
                alt.Tooltip("config:N"),
            ],
        )
        .properties(height=alt.Step(14))
    )
    panels = list(dict.fromkeys(data["panel"]))
    # each op's name above its panel: beside it, it took half the width
    header = alt.Header(
        labelOrient="top", labelAnchor="start", labelFontWeight="bold", labelLimit=900
    )
    row = alt.Row("panel:N", sort=panels, title=None, header=header)
    # each op on its own time axis: a small GEMM's choices stay readable beside a large one's
    return bars.facet(row=row).resolve_scale(x="independent", y="independent")


def _ms(value: float | None) -> str:
    return "—" if value is None else f"{value:.4g} ms"


def op_line(row: dict[str, Any]) -> str:
    """One op in words: who won, best Triton against best extern, how long autotuning took."""
    head = f"Autotune, {row['mode']} · {row['op']}: "
    if row["winner"] is None:
        return head + f"no choice timed ({row['choices']} failed)."
    text = (
        f"{row['winner']} ({row['winner_kind']}) won at {_ms(row['winner_ms'])} of "
        f"{row['choices']} choices"
    )
    if row["best_triton"] and row["best_extern"]:
        text += (
            f"; best Triton {row['best_triton']} {_ms(row['best_triton_ms'])} vs best extern "
            f"{row['best_extern']} {_ms(row['best_extern_ms'])}: "
            f"{ratio_words(row['triton_vs_extern'])}"
        )
    if not row["benchmarked"]:
        return head + f"{text} ({CACHED})."
    took = row["autotune_s"]
    return head + text + ("" if took is None else f"; benchmarked in {took:.2f} s") + "."


def notes(result: FusionResult) -> list[str]:
    """A line per autotuned op; a mode that autotuned none, why; no mode that could: one line."""
    captured = [m for m in result.modes if m.autotune is not None]
    lost = [
        m.mode
        for m in result.modes
        if m.autotune is None and "max-autotune" in m.mode and result.device.startswith("cuda")
    ]
    if not captured and not lost:
        return [NEEDS]
    found = [op_line(op_row(mode, op)) for mode, op in tuned_ops(result)]  # None kept, not NaN
    found += [f"Autotune, {m.mode}: {m.autotune.note}." for m in captured if not m.autotune.ops]
    return found + [f"Autotune, {mode}: {NOT_RECORDED}." for mode in lost]


def views(result: FusionResult) -> AutotuneViews:
    """The tables, chart and notes of the fusion report's autotune part."""
    ops = ops_frame(result)
    lines = tuple(notes(result))
    if ops.empty:
        return AutotuneViews(notes=lines)
    choices = choices_frame(result)
    shown = choices.dropna(axis="columns", how="all")
    tables = ((OPS_TITLE, ops), (CHOICES_TITLE, shown))
    charts = ((CHART_TITLE, choices_chart(choices)),) if choices["time_ms"].notna().any() else ()
    return AutotuneViews(tables, charts, lines)


def figures(result: FusionResult) -> dict[str, Any]:
    """Key figures where a mode autotuned: `autotune` (each op with its choices, for the run's
    JSON), the seconds and best Triton ÷ best extern per mode and op, a mode's reason for none."""
    ops = [(mode, op, op_row(mode, op)) for mode, op in tuned_ops(result)]
    found: dict[str, Any] = {
        "autotune": [
            {
                **{k: v for k, v in row.items() if k != "triton_vs_extern_words"},
                "choices": [
                    {
                        "choice": c.choice,
                        "kind": c.kind,
                        "config": c.config,
                        "time_ms": c.time_ms,
                        "winner": c.winner,
                    }
                    for c in op.choices
                ],
            }
            for _, op, row in ops
        ]
    }
    seconds: dict[str, dict[str, float]] = {}
    ratios: dict[str, dict[str, float]] = {}
    for mode, op, row in ops:
        if row["autotune_s"] is not None:
            seconds.setdefault(mode, {})[op.op] = row["autotune_s"]
        if row["triton_vs_extern"] is not None:
            ratios.setdefault(mode, {})[op.op] = row["triton_vs_extern"]
    reasons = {m.mode: m.autotune.note for m in result.modes if m.autotune and not m.autotune.ops}
    for key, value in (("autotune_s", seconds), ("triton_vs_extern", ratios)):
        if value:
            found[key] = value
    if reasons:
        found["autotune_note"] = reasons
    return found
