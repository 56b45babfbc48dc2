"""Fusion's Summary tab: kernels, steady state, speed-ups and compile as pairs, one chart, a
few lines, the per-mode warnings merged into one line each."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from runtime_lab.fusion.report import compile_cache as cache
from runtime_lab.fusion.report import step
from runtime_lab.fusion.report.cache import WorkingSet
from runtime_lab.fusion.report.checks import over_ceiling
from runtime_lab.fusion.report.figures import NAIVE_RECORD, FusionFigures, naive_arms, state_key
from runtime_lab.fusion.result import FusionResult
from runtime_lab.glossary.ratio import span
from runtime_lab.report import CACHE, CLOCKS, Metric, Summary
from runtime_lab.view.fmt import fmt_ms, fmt_seconds
from runtime_lab.view.summary import figure, first_sentence, fit, pairs

# the chart that shows the headline's claim (eager against the compiled mode, every sample),
# else the kernels it counts
CHART_STARTS = ("Steady-state time per call", "Kernels per call")


def summary(
    result: FusionResult,
    fig: FusionFigures,
    modes: pd.DataFrame,
    chart_titles: Sequence[str],
    said: frozenset[str] = frozenset(),
    ws: WorkingSet | None = None,
) -> Summary:
    """`said`: what the headline's verdict already doubts (report.Verdict.states): its
    warning stays in the Notes; `ws`: the run's working set against its cache."""
    return Summary(
        pairs=_pairs(result, fig),
        chart=next(
            (t for start in CHART_STARTS for t in chart_titles if t.startswith(start)), None
        ),
        prose=fit(_prose(result, fig, modes)),
        warnings=tuple(_warnings(fig, modes, said, ws)),
    )


def _kernels(result: FusionResult, mode: str | None, named: bool = False) -> str:
    """Launches per call; a training step's by pass: "2 + 3 per call (forward + backward)"."""
    found = next((m for m in result.modes if m.mode == mode), None)
    if found is None or found.kernel_count is None:
        return "—"
    where = [mode] if named else []
    if step.stepped(result):
        where.append(step.words(result))
    return f"{step.counts(result, found)} per call" + (f" ({', '.join(where)})" if where else "")


def _steady(fig: FusionFigures, mode: str | None) -> str:
    found = next((f for f in fig.modes if f.mode == mode), None)
    if found is None or found.steady_state_ms is None:
        return "—"
    return fmt_ms(found.steady_state_ms) + (" (noisy)" if found.noisy else "")


def _seconds(value: float | None) -> str:
    return "—" if value is None else fmt_seconds(value)


def naive_value(result: FusionResult, naive: float | None, state: str | None = None) -> str:
    """The naive A/B figure with the call count after which its verdict flips, and the cache
    its compiled first call ran with (key figures' naive_speedup_cache_state)."""
    arms = naive_arms(result)
    if naive is None or arms is None:
        return "—"
    flips = arms.break_even
    said = [f"flips after {math.ceil(flips):,} calls"] if flips is not None else []
    # its compiled first call is the earlier run's where the run took it from there
    taken = result.compile_from_run
    said += [f"first call measured in run #{taken}"] if taken is not None else []
    said += [cache.said(state)] if state else []
    return f"{naive:.3g}×" + (f" ({'; '.join(said)})" if said else "")


def naive_detail(result: FusionResult, state: str | None = None) -> str | None:
    """Which record gave the compiled arm's first call, the cache it ran with, and the arms
    it adds up."""
    arms = naive_arms(result)
    if arms is None:
        return None
    older = (
        ""
        if arms.record == NAIVE_RECORD
        else " (a run stored before its own first call was kept: this record instead)"
    )
    with_cache = f", {cache.said(state)}" if state else " (its cache state not recorded)"
    return (
        f"Here: k = {arms.calls} calls per arm; eager's first call {fmt_ms(arms.eager_first_ms)}, "
        f"the compiled first call {fmt_ms(arms.compiled_first_ms)} from its "
        f"'{arms.record}' compile record{older}{with_cache}. The verdict flips where the totals "
        "cross: (compiled first − eager first) ÷ (eager median − compiled median) calls."
    )


def _pairs(result: FusionResult, fig: FusionFigures) -> tuple[tuple[Metric, ...], ...]:
    key = fig.summary
    compiled = key["compiled_mode"]
    measured, naive = key["measured_speedup"], key.get("naive_speedup")
    kernels = (
        figure("fusion", "eager_kernel_names", _kernels(result, "eager")),
        figure("fusion", "compiled_kernel_names", _kernels(result, compiled, named=True)),
    )
    steady = (
        figure("fusion", "steady_state_ms.eager", _steady(fig, "eager")),
        figure("fusion", f"steady_state_ms.{compiled or 'compiled'}", _steady(fig, compiled)),
    )
    taken = key.get("compile_from_run")
    compile_pair = tuple(
        figure("fusion", name, cache.beside(_seconds(key[name]), key.get(state_key(name)), taken))
        for name in ("cold_compile_s", "warm_cache_compile_s")
    )
    naive_state = key.get("naive_speedup_cache_state")
    if step.stepped(result):  # the speed-up is the headline's; what each saved for backward
        return pairs(kernels, steady, _saved_pair(result, compiled), compile_pair)
    return pairs(
        kernels,
        steady,
        (
            figure("fusion", "measured_speedup", "—" if measured is None else f"{measured:.2f}×"),
            figure(
                "fusion",
                "naive_speedup",
                naive_value(result, naive, naive_state),
                naive_detail(result, naive_state),
            )
            if result.timed_before_profiling
            else figure("fusion", "predicted_speedup", f"{key['predicted_speedup']:.2f}×"),
        ),
        compile_pair,
    )


def _saved_pair(result: FusionResult, compiled: str | None) -> tuple:
    """Eager's saved-for-backward bytes beside the compiled mode's; () where not recorded."""
    by = {m.mode: m for m in result.modes if m.saved is not None}
    return tuple(
        figure("fusion", f"saved_bytes.{name}", step.saved_figure(by[name]))
        for name in dict.fromkeys(("eager", compiled))
        if name in by
    )


def _prose(result: FusionResult, fig: FusionFigures, modes: pd.DataFrame) -> list[str]:
    key = fig.summary
    found = [first_sentence(f"{m.mode}: {m.error}") for m in result.modes if m.error]
    found += cache.from_line(result.compile_from_run)  # early: the budget keeps it
    if step.stepped(result):
        found.append(
            f"Each time is of the step ({step.words(result)}); no GB/s or roofline: the bytes "
            "model is the forward's (Notes)."
        )
    eager_ms = key["steady_state_ms"].get("eager")
    for row in modes[modes["fewer_kernels_but_slower"]].itertuples():
        found.append(
            f"{row.mode} launches fewer kernels than eager yet takes longer per call "
            f"({row.steady_state_ms:.4g} ms vs {eager_ms:.4g} ms): fusing did not pay here."
        )
    naive, measured = key.get("naive_speedup"), key["measured_speedup"]
    if result.timed_before_profiling and naive and measured:
        state = key.get("naive_speedup_cache_state")
        found.append(
            f"A naive A/B (the compile inside the compiled arm's first call, no warm-up) reads "
            f"{naive_value(result, naive, state)} where the steady state reads {measured:.3g}×."
        )
    if result.device == "cpu":
        found.append(
            "CPU run: kernels are the profiler's CPU ops, times the host's wall time of "
            "synchronous calls."
        )
    return found


def _warnings(
    fig: FusionFigures, modes: pd.DataFrame, said: frozenset[str], ws: WorkingSet | None
) -> list[str]:
    """checks.warnings in one line each (every mode over the ceiling, every clock flagged),
    less those the verdict beside the headline already says."""
    found = []
    over = over_ceiling(modes)
    if not over.empty and CACHE not in said:
        why = ws.over_ceiling() if ws else "the working set may fit in cache"
        found.append(
            f"{', '.join(over['mode'])} exceed the {fig.ceiling_source} ceiling (up to "
            f"{over['ceiling_pct'].max():.0f} %): {why}. Details: Notes."
        )
    flagged = [r for r in fig.clocks if r["flagged"]]
    if flagged and CLOCKS not in said:
        clocks = ", ".join(dict.fromkeys(r["clock"] for r in flagged))
        ratios = [r["ratio_to_lab"] for r in flagged]
        found.append(
            f"{clocks} disagrees with the lab's clock on {len(flagged)} mode(s) "
            f"({span(ratios)} its median): quote a figure with its "
            "clock. Details: Notes."
        )
    return found
