"""What a streams run of a catalog workload says: the race window its op leaves, with the figures."""

from __future__ import annotations

from typing import Any

from runtime_lab.results import stats
from runtime_lab.streams.info import SEED_OP
from runtime_lab.streams.report.frames import size_text
from runtime_lab.streams.report.headline import error_label, error_text
from runtime_lab.streams.result import StreamsResult, op_timing
from runtime_lab.view.fmt import fmt_ms
from runtime_lab.workloads.registry import look_for

EXPECT = (
    "What the seed leads one to expect: the broken orderings go wrong because the spin kernel "
    "(delay_us) holds the race window open, whatever the op; without it (delay_us 0) the "
    "window is the op's own time, and a short op such as rms_norm leaves a far smaller one "
    "than a GEMM, so its broken orderings can come out right in most trials. Overlap pays "
    "only when neither stream's kernels fill the GPU."
)


def catalog_op(result: StreamsResult) -> bool:
    """The side stream ran a catalog workload (the seed's matmul and older runs: as before)."""
    return bool(result.workload) and result.workload != SEED_OP


def notes(run: dict[str, Any], result: StreamsResult) -> list[str]:
    """The workload's 'what to look for', what to expect of its race window, what happened."""
    if not catalog_op(result):
        return []
    # on CPU no race window opens: what the seed leads one to expect of it does not apply
    expect = [EXPECT] if result.streams_supported else []
    return [*look_for(result.workload), *expect, _happened(run, result)]


def _happened(run: dict[str, Any], result: StreamsResult) -> str:
    shape = "x".join(str(d) for d in run["spec"]["shape"])
    timed = op_timing(result)
    took = stats(timed.primary_ms) if timed else None
    op = f"{result.workload} at {shape} takes {fmt_ms(took.median)} per call" if took else ""
    if not result.streams_supported:
        return (
            f"What happened: on CPU only the correctness branch ran ({op or result.workload}, "
            f"{error_label()} {error_text(result.max_abs_diff)}); the race window, the "
            "orderings and overlap need a GPU."
        )
    broken = [v for v in result.variants if not v.expected_correct]
    wrong = ", ".join(f"{v.variant} {v.mismatches}/{v.trials}" for v in broken) or "none run"
    window = (
        f"the spin holds a {result.delay_ms:g} ms window ahead of each producer"
        if result.delay_ms
        else "no spin: the window is the op's own time"
    )
    text = f"What happened: {op or result.workload} on the device; {window}; wrong results of the broken orderings: {wrong}."
    if broken and not any(v.mismatches for v in broken):
        text += " No race showed: " + (
            "as expected of a short op without a spin."
            if not result.delay_ms
            else "unexpected with a spin holding the window open (raise trials or delay_us)."
        )
    return text + _overlap(result)


def _overlap(result: StreamsResult) -> str:
    cases = [c for c in result.overlap if c.overlap_pct is not None]
    if not cases:
        return ""
    each = "; ".join(f"{c.label} ({size_text(c)}) {c.overlap_pct:.0f} %" for c in cases)
    return f" Two streams overlapped: {each}."
