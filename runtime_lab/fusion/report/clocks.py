"""Three clocks on one mode (no torch): each clock's ratio to the lab's median, and when to flag it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from runtime_lab.fusion.result import FusionResult
from runtime_lab.results import stats

LAB = "lab"
CLOCK_ORDER = (LAB, "torch.utils.benchmark", "triton.do_bench")
# At ≥ 2048² a call moves tens of MB and runs long enough that clocks which differ only in
# method should agree within 5 %. Below that, launch overhead and L2 residency make the clocks
# measure different things; any difference beyond the lab's own spread is still worth a look.
LARGE_NUMEL = 2048 * 2048
PREFIX = "the lab's harness: "  # how run_clocks starts the lab's detail
METHODS = {
    "torch.utils.benchmark": "host wall clock over blocks of back-to-back calls, no L2 flush, "
    "so launches overlap and data can stay in cache",
    "triton.do_bench": "CUDA events per call with its own L2 flush before each",
}
AGREEMENT_FRACTION = 0.05
CLOCK_APART = 0.03  # SM clocks further apart than this between two timings: said beside them
# Beyond this spread the lab's own clock cannot tell agreement from noise: a clock inside it is
# "too noisy to judge", never "agrees" (0.48x the lab's median once passed as agreeing)
JUDGE_FRACTION = 0.25
AGREES, FLAGGED, UNJUDGED = "agrees", "flagged: disagrees with lab", "lab too noisy to judge"
AGREEMENT = (AGREES, FLAGGED, UNJUDGED)


def allowed_fraction(lab_spread: float, numel: int) -> float:
    """How far a clock may sit from the lab's median, as a fraction of it, before it is flagged:
    max(5 %, the lab's IQR/median) at ≥ 2048² elements, the lab's IQR/median below."""
    return max(AGREEMENT_FRACTION, lab_spread) if numel >= LARGE_NUMEL else lab_spread


def clock_rows(result: FusionResult) -> list[dict[str, Any]]:
    """One row per mode and clock: median, IQR (q1..q3), ratio to the lab, allowed, flagged."""
    rows = []
    for mode in result.modes:
        lab = next((c for c in mode.clocks if c.clock == LAB), None)
        if lab is None or lab.median_ms <= 0:
            continue
        lab_spread = (lab.iqr_ms or 0.0) / lab.median_ms
        allowed = allowed_fraction(lab_spread, result.numel)
        for c in sorted(mode.clocks, key=lambda c: _rank(c.clock)):
            s = stats(c.samples_ms)
            half = (c.iqr_ms or 0.0) / 2
            ratio = c.median_ms / lab.median_ms
            flagged = c.clock != LAB and abs(ratio - 1) > allowed
            rows.append(
                {
                    "mode": mode.mode,
                    "clock": c.clock,
                    "median_ms": c.median_ms,
                    "iqr_ms": c.iqr_ms,
                    # quantiles from the samples; a clock that gave none: median ± IQR/2
                    "q1_ms": s.q1 if s else c.median_ms - half,
                    "q3_ms": s.q3 if s else c.median_ms + half,
                    "samples": len(c.samples_ms),
                    "ratio_to_lab": ratio,
                    "allowed_pct": 100 * allowed,
                    "flagged": flagged,
                    "detail": c.detail,
                    "agreement": agreement(c.clock, flagged, allowed),
                    # NVML over this clock's timing (None off CUDA, without NVML, older runs)
                    "sm_clock_mhz": c.gpu.median_clock_mhz if c.gpu else None,
                    "power_capped_pct": c.gpu.power_capped_pct if c.gpu else None,
                }
            )
    return rows


def agreement(clock: str, flagged: bool, allowed: float) -> str:
    """What the chart's legend says of one clock, by the same threshold as its flag."""
    if flagged:
        return FLAGGED
    return UNJUDGED if clock != LAB and allowed > JUDGE_FRACTION else AGREES


def _rank(clock: str) -> int:
    return CLOCK_ORDER.index(clock) if clock in CLOCK_ORDER else len(CLOCK_ORDER)


COLUMNS = ["mode", "clock", "median_ms", "iqr_ms", "q1_ms", "q3_ms", "samples", "ratio_to_lab"]
COLUMNS += ["allowed_pct", "flagged", "detail", "agreement", "sm_clock_mhz", "power_capped_pct"]


def clocks_frame(rows: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """The rows of clock_rows as a frame (empty, with its columns, when no mode had clocks)."""
    return pd.DataFrame(rows, columns=COLUMNS)


def clock_medians(result: FusionResult) -> dict[str, dict[str, float]]:
    """{mode: {clock: median ms}}: the CLI summary's "clocks"."""
    return {m.mode: {c.clock: c.median_ms for c in m.clocks} for m in result.modes if m.clocks}


def clock_warning(rows: Sequence[dict[str, Any]]) -> str | None:
    """One warning naming every flagged (mode, clock) with its ratio, and how each clock times
    (rows: clock_rows of the run)."""
    flagged = [r for r in rows if r["flagged"]]
    if not flagged:
        return None
    labs = {r["mode"]: r for r in rows if r["clock"] == LAB}
    pairs = "; ".join(
        f"{r['mode']} · {r['clock']} {r['ratio_to_lab']:.3f}× (allowed ±{r['allowed_pct']:.1f} %"
        f"{_clock_apart(r, labs.get(r['mode']))})"
        for r in flagged
    )
    methods = " ".join(
        f"{clock}: {METHODS.get(clock, 'its own method')}."
        for clock in dict.fromkeys(r["clock"] for r in flagged)
    )
    lab = next(r["detail"] for r in rows if r["clock"] == LAB)
    return (
        f"Clocks disagree with the lab's median by more than allowed: {pairs}. They time "
        f"differently, so quote a figure with its clock. Lab: {lab.removeprefix(PREFIX)}. "
        f"{methods}"
    )


def _clock_apart(row: dict[str, Any], lab: dict[str, Any] | None) -> str:
    """ ", at SM 1650 MHz against the lab's 1980" where the two were timed at clocks more than
    CLOCK_APART apart: the GPU, not the clock's method, moved that much of the figure."""
    mine, theirs = row.get("sm_clock_mhz"), (lab or {}).get("sm_clock_mhz")
    if not (mine and theirs) or abs(mine / theirs - 1) <= CLOCK_APART:
        return ""
    capped = row.get("power_capped_pct")
    cap = f", power-capped {capped:.0f} % of it" if capped else ""
    return f", at SM {mine:.0f} MHz{cap} against the lab's {theirs:.0f}"
