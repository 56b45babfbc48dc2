"""The recompiles report's what-ifs: the stance after warm-up, reduce-overhead's CUDA graphs, marks."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from runtime_lab.glossary import registry as glossary
from runtime_lab.recompiles import cudagraph_calls as cg
from runtime_lab.recompiles.report import charts as cr
from runtime_lab.recompiles.report.figures import RecompilesFigures
from runtime_lab.recompiles.result import CallRecord, ModeRun, RecompilesResult
from runtime_lab.report import Metric

MARKING = ("mark_dynamic", "maybe_mark_dynamic", "mark_unbacked")
STANCE_NOTE = (
    "The stance was set from the second call on: the first call compiled under the default "
    "stance (fail_on_recompile would refuse even that first compile, eager_on_recompile would "
    "never compile at all), so the later calls show what the stance does after warm-up; their "
    "steady-state times ran under it too."
)
CUDAGRAPH_NOTE = (
    "How cudagraph trees run a new graph: once outside a graph as a warm-up (in the private "
    "pool), recorded on its next call, replayed after; every recording lives in one pool per "
    "device, so the pool grows with each distinct shape. The what-if ran dynamic=False (each "
    "shape its own graph) under the default stance."
)


def stance_failure(call: CallRecord) -> bool:
    """A call the stance made raise: the what-if's point, not a failure of the run."""
    return call.event == "failed" and (call.reason or "").startswith("stance ")


def _modes(result: RecompilesResult, fig: RecompilesFigures) -> list[ModeRun]:
    by = {m.mode: m for m in result.modes}
    return [by[name] for name in fig.order]


def _mb(n: int | None) -> str:
    return "—" if n is None else f"{n / 1e6:.3g} MB"


def metrics(result: RecompilesResult, fig: RecompilesFigures) -> list[Metric]:
    found = []
    staged = [m for m in _modes(result, fig) if m.stance and not m.error]
    if staged:
        eager = sum(m.stance_eager for m in staged)
        failed = sum(m.stance_failed for m in staged)
        per_mode = "; ".join(
            f"{m.mode} {m.stance_eager} eager, {m.stance_failed} failed" for m in staged
        )
        found.append(
            Metric(
                "stance after call 1",
                f"{result.stance} · {eager} eager · {failed} failed",
                glossary.help_text(
                    "recompiles",
                    "stance.stance",
                    f"calls the stance ran eager or made raise, per mode: {per_mode}",
                ),
            )
        )
    for m in _modes(result, fig):
        if m.mode != cg.MODE or m.error:
            continue
        n = fig.cudagraphs
        help_text = (
            f"{n['warmup']} warm-up(s), {n['recorded']} recorded, {n['replayed']} replayed, "
            f"{n['skipped']} skipped; pool {_mb(m.pool_bytes)} after the sequence"
        )
        value = f"{n['recorded']} recorded · {n['replayed']} replayed"
        help_text = glossary.help_text("recompiles", "cudagraphs.recorded", help_text + _why(m))
        found.append(Metric(f"{cg.MODE}: CUDA graphs", value, help_text))
    return found


def _why(mode: ModeRun) -> str:
    return f" ({mode.cudagraph_note})" if mode.cudagraph_note else ""


def _stance_line(m: ModeRun) -> str:
    later = len(m.calls) - 1
    compiled = sum(bool(c.stance) and c.event == "cache hit" for c in m.calls)
    text = f"{m.mode} under stance {m.stance}: of {later} call(s) after the first, "
    text += f"{m.stance_eager} ran eager and {m.stance_failed} raised because of the stance"
    return text + f", {compiled} ran a compiled frame."


def _cudagraph_line(m: ModeRun, n: Mapping[str, int]) -> str:
    text = f"{cg.MODE}: {n['warmup']} warm-up(s), {n['recorded']} recorded, "
    text += f"{n['replayed']} replayed, {n['skipped']} skipped"
    skipped = next((c for c in m.calls if c.cudagraph == "skipped"), None)
    if skipped is not None:
        text += f" (call {skipped.index}: {skipped.cudagraph_reason})"
    pool = (
        f"the pool holds {_mb(m.pool_bytes)} after the sequence" if m.pool_bytes is not None else ""
    )
    return (
        text
        + (f"; {pool}" if pool else "")
        + (f"; {m.cudagraph_note}" if m.cudagraph_note else "")
        + "."
    )


def _mark_lines(result: RecompilesResult, m: ModeRun) -> list[str]:
    lines = []
    ones = [c for c in m.calls if any(d == 1 for d in c.shape)]
    if m.mode == "mark_unbacked" and ones:
        hits = [str(c.index) for c in ones if c.event == "cache hit"]
        if hits:
            lines.append(
                f"mark_unbacked: unbacked sizes are never specialized to 0 or 1, so call(s) "
                f"{', '.join(hits)} with a size-1 dimension reused its frame."
            )
    if m.mode == "maybe_mark_dynamic":
        marked = {f"index {d}" for d in result.dims}
        hinted = [
            c
            for c in m.calls
            if c.event == "recompile" and c.reason and any(i in c.reason for i in marked)
        ]
        if hinted:
            c = hinted[0]
            lines.append(
                f"maybe_mark_dynamic is a hint: Dynamo specialized a marked dim and recompiled at "
                f"call {c.index} ({c.reason})."
            )
    failed = [c for c in m.calls if c.event == "failed" and not stance_failure(c)]
    if m.mode in MARKING and failed:
        lines.append(f"{m.mode}: call {failed[0].index} failed: {failed[0].error}")
    return lines


def notes(result: RecompilesResult, fig: RecompilesFigures) -> list[str]:
    found = []
    for m in _modes(result, fig):
        if m.error:
            continue
        if m.stance:
            found.append(_stance_line(m))
        if m.mode == cg.MODE:
            found.append(_cudagraph_line(m, fig.cudagraphs))
        found += _mark_lines(result, m)
    if any(m.stance for m in result.modes):
        found.append(STANCE_NOTE)
    if any(m.mode == cg.MODE and not m.error for m in result.modes):
        found.append(CUDAGRAPH_NOTE)
    return found


def charts(graphs: pd.DataFrame) -> list:
    """graphs: frames.cudagraph_frame of the run."""
    if graphs.empty:
        return []
    title = "reduce-overhead what-if: what cudagraph trees did per call (#: the CUDA graph's id)"
    return [(title, cr.cudagraph_chart(graphs))]


def tables(graphs: pd.DataFrame) -> list:
    """graphs: frames.cudagraph_frame of the run."""
    if graphs.empty:
        return []
    return [("CUDA graphs per call (reduce-overhead)", graphs.dropna(axis="columns", how="all"))]
