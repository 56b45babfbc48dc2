"""Fusion report checks: clocks, ceiling, naive A/B (runs timed before profiling), mega-cache."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import altair as alt
import pandas as pd

from runtime_lab.fusion.report import compile_cache as cache
from runtime_lab.fusion.report.cache import WorkingSet
from runtime_lab.fusion.report.clock_chart import clocks_chart
from runtime_lab.fusion.report.clocks import clock_warning, clocks_frame
from runtime_lab.fusion.report.figures import FusionFigures
from runtime_lab.fusion.result import FusionResult
from runtime_lab.glossary import registry as glossary
from runtime_lab.report import Metric
from runtime_lab.view.fmt import fmt_bytes, fmt_seconds

MEGA = "mega-cache"
OVER_CEILING_PCT = 101.0  # beyond timer noise: the "ceiling" was not the device's limit


def metrics(result: FusionResult, fig: FusionFigures) -> list[Metric]:
    if not result.timed_before_profiling:
        return []
    best, source = fig.ceiling_gbps, fig.ceiling_source
    add = result.add_gbps
    peak = result.theoretical_gbps
    naive, measured = fig.summary.get("naive_speedup"), fig.summary.get("measured_speedup")
    state = fig.summary.get("naive_speedup_cache_state")
    naive_text = cache.beside(
        "—" if naive is None else f"{naive:.3g}×", state, result.compile_from_run
    )
    speedups = Metric(
        "speed-up: naive A/B vs measured",
        f"{naive_text} vs {'—' if measured is None else f'{measured:.3g}×'}",
        glossary.help_text(
            "fusion", "naive_speedup", "measured: warm steady-state medians, eager ÷ compiled"
        ),
    )
    if result.training_pass != "fwd":  # no figure of a training step is read against a ceiling
        return [speedups]
    return [
        Metric(
            "ceiling (best measured)",
            "—" if best is None else f"{best:,.1f} GB/s ({source})",
            glossary.help_text(
                "fusion",
                "ceiling_gbps",
                f"Here: the add read {'—' if add is None else f'{add:,.1f}'} GB/s; % of ceiling "
                "uses the better of the two.",
            ),
        ),
        Metric(
            "theoretical peak",
            "not available" if peak is None else f"{peak:,.1f} GB/s",
            glossary.help_text("fusion", "theoretical_gbps", result.theoretical_detail or None),
        ),
        speedups,
    ]


def over_ceiling(modes: pd.DataFrame) -> pd.DataFrame:
    """The modes that read above the measured memory ceiling."""
    return modes[modes["ceiling_pct"].notna() & (modes["ceiling_pct"] > OVER_CEILING_PCT)]


def warnings(
    result: FusionResult, fig: FusionFigures, modes: pd.DataFrame, ws: WorkingSet
) -> list[str]:
    """Modes above the ceiling (with why, in this run's sizes), clocks that disagree."""
    if not result.timed_before_profiling:
        return []
    found = []
    best, source = fig.ceiling_gbps, fig.ceiling_source
    for row in over_ceiling(modes).itertuples():
        found.append(
            f"{row.mode} reaches {row.ceiling_pct:.0f} % of the {source} ceiling "
            f"({best:,.0f} GB/s; {row.achieved_gbps:,.0f} GB/s from the bytes model, "
            f"{fmt_bytes(row.bytes_per_call)} per call): {ws.over_ceiling()}."
        )
    disagree = clock_warning(fig.clocks)
    return found + ([disagree] if disagree else [])


def naive_note(result: FusionResult, key: Mapping[str, Any]) -> list[str]:
    naive, measured = key.get("naive_speedup"), key.get("measured_speedup")
    if not (result.timed_before_profiling and naive and measured):
        return []
    state = key.get("naive_speedup_cache_state")
    assumes = f" Its compiled first call: {cache.said(state)}." if state else ""
    if state == cache.EMPTY:
        assumes = (
            " Its compiled first call compiled with empty cache folders of its own: what a "
            "program compiling this graph for the first time sees, whatever ran before."
        )
    if result.compile_from_run is not None:  # that first call is the earlier run's
        assumes += f" That first call ran in run #{result.compile_from_run}, taken from there."
    return [
        f"A naive A/B would report {naive:.3g}× where the measured speed-up is {measured:.3g}×: "
        f"it counts {key['compiled_mode']}'s compile in its first call (the compiled arm only) "
        "and averages a few calls without warm-up, so it measures compile cost plus steady "
        f"state, not the steady state alone.{assumes}"
    ]


def first_call_note(key: Mapping[str, Any]) -> list[str]:
    """Each compiled mode's first call with the compile cache it ran with (issue 49)."""
    seconds, states = key.get("first_call_s") or {}, key.get("first_call_cache_state") or {}
    if not seconds:
        return []
    calls = ", ".join(
        cache.beside(f"{mode} {fmt_seconds(s)}", states.get(mode)) for mode, s in seconds.items()
    )
    return [f"First calls, compile included: {calls}."]


def host_bound_note(result: FusionResult, modes: pd.DataFrame) -> list[str]:
    """Host-bound figures are the process's as much as the code's: say so where they appear."""
    bound = modes[modes["verdict"] == "host-bound"]["mode"].tolist() if "verdict" in modes else []
    if result.device == "cpu" or not bound:
        return []
    return [
        f"Host-bound here: {', '.join(bound)}. Their time is the host's launch path, which "
        "differs between processes on one machine (on the H200 host, three clean processes of "
        "one script gave 29–43 µs per eager 256² call and 2.96–5.00 µs per fused graph replay, "
        "depending on the core they ran on): compare them within one run, and across runs only "
        "with the process probe beside them."
    ]


def clock_views(clocks: Sequence[dict[str, Any]]):
    """("Three clocks" table, chart) or (None, None) when no mode recorded clocks (clocks:
    clock_rows of the run)."""
    frame = clocks_frame(clocks)
    if frame.empty:
        return None, None
    table = frame[["mode", "clock", "median_ms", "iqr_ms", "ratio_to_lab", "flagged", "detail"]]
    chart: alt.TopLevelMixin = clocks_chart(frame)
    return table, chart


def mega_cache_notes(result: FusionResult) -> list[str]:
    """What the portable caches bought a fresh process, next to this job's cold compile."""
    cpu = result.device == "cpu"
    return [_mega_note(m, cpu) for m in result.modes if any(c.scenario == MEGA for c in m.compile)]


def _mega_note(mode, cpu: bool) -> str:
    by = {c.scenario: c for c in mode.compile}
    mega, cold = by[MEGA], by.get("cold")
    if mega.first_call_s is None or mega.detail.startswith("failed"):
        return f"{mode.mode} · mega-cache: {mega.detail}"
    text = (
        f"{mode.mode} · mega-cache: a fresh process loaded {fmt_bytes(mega.artifact_bytes)} of "
        "portable cache artefacts (torch.compiler.save_cache_artifacts() in another fresh "
        "process, load_cache_artifacts() here) and "
    )
    if mega.fx_cache_hits:
        text += "hit Inductor's FX graph cache"
    else:
        text += "did NOT hit Inductor's FX graph cache: it compiled from scratch"
    text += f"; load + compile + first call {fmt_seconds(mega.first_call_s)}"
    if cold:
        text += f", against {fmt_seconds(cold.first_call_s)} cold with empty caches in the worker"
    if cpu and mega.fx_cache_hits:  # seen on torch 2.13: B's cache dir gains new .so files
        text += (
            ". On CPU the artefacts carry Inductor's generated C++ source, not the built "
            "library, so that process still runs the C++ compiler"
        )
    return text + " (each process's phases: the compile table's detail)."
