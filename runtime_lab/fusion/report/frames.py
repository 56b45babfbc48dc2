"""Fusion results → tidy DataFrames: modes, kernels, compile phases, samples, sweep, evidence."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pandas as pd

from runtime_lab.fusion.report import compile_cache
from runtime_lab.fusion.report.figures import ModeFigures
from runtime_lab.fusion.report.kernel_table import short_kernel_name
from runtime_lab.fusion.result import OWN_FIRST_CALL, CompileLatency, FusionResult, ModeResult
from runtime_lab.glossary import units
from runtime_lab.results import KernelRow
from runtime_lab.view import frames
from runtime_lab.view.fmt import fmt_bytes

# get_compilation_metrics() times are cumulative and nested, outermost first:
# dynamo ⊇ aot ⊇ inductor ⊇ codegen ⊇ triton (kernel compile: Triton on CUDA, C++ on CPU).
PHASES = ("dynamo", "aot", "inductor", "codegen", "triton")
PHASE_ORDER = (*PHASES, "other")
SCENARIO_ORDER = (
    "cold",
    "warm-cache",
    "warm-process",
    "fresh-process",
    "mega-cache",
    "first call",
    OWN_FIRST_CALL,
)
STALE_SLACK = 1.05  # timer granularity: phases may exceed the call by a hair


def _status(mode: ModeResult) -> str:
    if mode.ran:
        return "timed, outside tolerance" if mode.tolerance_passed is False else "ran"
    if mode.not_timed:
        return "not timed"
    return "failed tolerance" if mode.tolerance_passed is False else "not run"


def modes_frame(result: FusionResult, figures: Sequence[ModeFigures]) -> pd.DataFrame:
    """One row per mode: correctness, kernels, time, verdict, speed-up and bandwidth."""
    by_mode = {f.mode: f for f in figures}
    rows = []
    for mode in result.modes:
        fig = by_mode[mode.mode]
        fraction = fig.ceiling_fraction
        rows.append(
            {
                "mode": mode.mode,
                "status": _status(mode),
                "error": mode.error,
                "kernels_per_call": mode.kernel_count,
                "max_abs_diff": mode.max_abs_diff,
                "max_abs_diff_fp64": mode.max_abs_diff_fp64,
                "rel_err_fp64": mode.rel_err_fp64,
                "allowed_err_fp64": mode.allowed_err_fp64,
                "tolerance_rule": mode.tolerance_rule,
                "tolerance_passed": mode.tolerance_passed,
                "steady_state_ms": fig.steady_state_ms,
                "iqr_ms": fig.iqr_ms,
                "noisy": fig.noisy,
                "device_ms": fig.device_ms,
                "host_ms": fig.host_ms,
                "loop_us_per_call": fig.loop_us_per_call,
                "loop_host_us_per_call": fig.loop_host_us_per_call,
                "kernel_us_per_call": fig.kernel_us_per_call,
                "verdict": fig.verdict,
                "speedup_vs_eager": fig.speedup_vs_eager,
                "achieved_gbps": fig.achieved_gbps,
                "ceiling_pct": None if fraction is None else 100 * fraction,
                "transfers_per_element": mode.transfers_per_element,
                "bytes_per_call": mode.bytes_moved,
                "graphs": mode.unique_graphs,
                "graph_breaks": mode.graph_breaks,
                "cuda_graph_compatible": mode.cuda_graph_compatible,
                "fewer_kernels_but_slower": fig.fewer_kernels_but_slower,
                **(_step_columns(mode) if result.training_pass != "fwd" else {}),
            }
        )
    frame = pd.DataFrame(rows)  # a result always has at least one mode
    if result.training_pass != "fwd":  # the bytes model is the forward's, not this step's:
        frame[list(FORWARD_BYTES)] = None  # empty, so the table leaves them out
    return frame


# the modes table's columns from the forward's bytes model, dropped for a training step
FORWARD_BYTES = ("achieved_gbps", "ceiling_pct", "transfers_per_element", "bytes_per_call")


def _step_columns(mode: ModeResult) -> dict:
    """A training step's columns: kernels per pass, the gradients' judgement, what the forward
    saved for the backward."""
    saved = mode.saved
    return {
        "forward_kernels": mode.forward_kernels,
        "backward_kernels": mode.backward_kernels,
        "grad_max_err_fp64": mode.grad_max_abs_diff_fp64,
        "grad_allowed_err_fp64": mode.grad_allowed_err_fp64,
        "grad_tolerance_passed": mode.grad_tolerance_passed,
        "saved_tensors": saved.tensors if saved else None,
        "saved_bytes": saved.bytes if saved else None,
        "saved_activation_bytes": saved.activation_bytes if saved else None,
    }


PASS_NAMES = ("forward", "backward", "outside the step")  # a training step's kernel table


def _kernel_row(mode: str, k: KernelRow, **extra) -> dict:
    return {
        "mode": mode,
        **extra,
        "kernel": short_kernel_name(k.name),
        "name": k.name,
        "calls_per_run": k.calls_per_run,
        "total_us": k.total_us,
        "mean_us": k.mean_us,
        "stream": k.stream,
        "grid": k.grid,
        "block": k.block,
        "registers": k.registers,
    }


def _by_pass(mode: ModeResult) -> list[tuple[str, KernelRow]]:
    """A step's kernels as (pass, row): each pass's rows, then what the profiled calls ran
    outside both ranges (a row's launches beyond its passes' count, its time in proportion)."""
    found = [("forward", k) for k in mode.forward_kernel_rows]
    found += [("backward", k) for k in mode.backward_kernel_rows]
    counted: dict[str, float] = {}
    for _, k in found:
        counted[k.name] = counted.get(k.name, 0.0) + k.calls_per_run
    for k in mode.kernels:
        left = k.calls_per_run - counted.get(k.name, 0.0)
        if left > 1e-6 and k.calls_per_run:
            share = left / k.calls_per_run
            found.append(
                (PASS_NAMES[2], replace(k, calls_per_run=left, total_us=k.total_us * share))
            )
    return found


def kernels_frame(result: FusionResult) -> pd.DataFrame:
    """One row per mode and kernel (CUDA) or op (CPU), times per call of the workload; a
    training step's by pass too (its `pass` column: forward, backward, outside the step)."""
    columns = ["mode", "kernel", "name", "calls_per_run", "total_us", "mean_us"]
    columns += ["stream", "grid", "block", "registers"]
    if result.training_pass == "fwd":
        rows = [_kernel_row(m.mode, k) for m in result.modes for k in m.kernels]
        return pd.DataFrame(rows, columns=columns)
    rows = [
        _kernel_row(m.mode, k, **{"pass": step, "bar": f"{m.mode} · {step}"})
        for m in result.modes
        for step, k in (_by_pass(m) if m.backward_kernel_rows else [(None, k) for k in m.kernels])
    ]
    for row in rows:
        row["bar"] = row["bar"] if row["pass"] else row["mode"]
    return pd.DataFrame(rows, columns=["mode", "pass", "bar", *columns[1:]])


def phase_seconds(c: CompileLatency) -> tuple[dict[str, float], bool]:
    """Each phase's own seconds (its time minus the next recorded phase inside it), and "other"
    (the first call minus the outermost recorded phase, floored at 0). The flag is True when
    the recorded phases exceed the call itself: they belong to an earlier compile, so the whole
    call is counted as "other"."""
    values = [(p, getattr(c, f"{p}_s")) for p in PHASES]
    present = [(p, v) for p, v in values if v is not None]
    own: dict[str, float] = {}
    for i, (phase, value) in enumerate(present):
        inner = present[i + 1][1] if i + 1 < len(present) else 0.0
        own[phase] = max(0.0, value - inner)
    recorded = present[0][1] if present else 0.0
    if recorded > c.first_call_s * STALE_SLACK:
        return {**dict.fromkeys(own, 0.0), "other": c.first_call_s}, True
    return {**own, "other": max(0.0, c.first_call_s - recorded)}, False


def compile_frame(result: FusionResult) -> pd.DataFrame:
    """One row per mode, scenario and phase: own seconds, with the call's totals and cache counts."""
    rows = []
    for mode in result.modes:
        for c in mode.compile:
            # not measured (e.g. mega-cache on an old torch): one row, no seconds, the detail says why
            unmeasured = ({"other": None}, False)
            phases, stale = phase_seconds(c) if c.first_call_s is not None else unmeasured
            for phase, seconds in phases.items():
                rows.append(
                    {
                        "mode": mode.mode,
                        "scenario": c.scenario,
                        "phase": phase,
                        "seconds": seconds,
                        "first_call_s": c.first_call_s,
                        "phases_stale": stale,
                        "compiles": c.compiles,
                        "fx_cache_hits": c.fx_cache_hits,
                        "fx_cache_misses": c.fx_cache_misses,
                        "aot_cache_hits": c.aot_cache_hits,
                        "aot_cache_misses": c.aot_cache_misses,
                        "detail": c.detail,
                        "artifact_bytes": c.artifact_bytes,
                        "cache_state": compile_cache.state(c, result.cache_token),
                        "measured_in": compile_cache.measured_in(c),
                    }
                )
    columns = ["mode", "scenario", "phase", "seconds", "first_call_s", "phases_stale", "compiles"]
    # the cache state where the run recorded one (issue 49): older runs draw as they did
    states = ["cache_state"] if any(r["cache_state"] for r in rows) else []
    # which run measured each record, where the run took some from an earlier one (issue 49)
    states += ["measured_in"] if result.compile_from_run is not None else []
    cache = ["fx_cache_hits", "fx_cache_misses", "aot_cache_hits", "aot_cache_misses", "detail"]
    return pd.DataFrame(rows, columns=[*columns, *states, *cache, "artifact_bytes"])


def compile_table(long: pd.DataFrame) -> pd.DataFrame:
    """The compile frame (compile_frame) wide by phase: one row per mode and scenario."""
    if long.empty:
        return long
    keys = ["mode", "scenario"]
    # pivot, not pivot_table: an unmeasured row (no seconds) must stay in the table
    once = long.drop_duplicates([*keys, "phase"])  # a repeated scenario: its first record
    wide = once.pivot(index=keys, columns="phase", values="seconds")
    wide = wide.reindex(columns=[p for p in PHASE_ORDER if p in wide.columns]).add_suffix("_s")
    rest = long.drop(columns=["phase", "seconds"]).drop_duplicates(keys).set_index(keys)
    table = rest[["first_call_s"]].join(wide).join(rest.drop(columns="first_call_s"))
    sizes = table.pop("artifact_bytes")
    if sizes.notna().any():  # mega-cache ran: its artefact size, in human units
        within = units.scale("bytes", sizes.dropna())  # one unit for the column
        table["artifact"] = sizes.map(
            lambda b: None if pd.isna(b) else units.show("bytes", b, within)
        )
    return table.reset_index()


def timing_samples(result: FusionResult) -> pd.DataFrame:
    """Every timed sample of every mode (label = mode)."""
    return frames.timing_samples(m.timing for m in result.modes if m.timing)


def timing_summary(result: FusionResult) -> pd.DataFrame:
    return frames.timing_summary(m.timing for m in result.modes if m.timing)


def sweep_frame(result: FusionResult) -> pd.DataFrame:
    """One row per mode, size and way of compiling: time per call, GB/s from the bytes model,
    and the kernel that served it (static or dynamic) where the mode compiles."""
    rows = [
        {
            "mode": p.mode,
            "side": p.side,
            "elements": p.side * p.side,
            "median_ms": p.median_ms,
            "iqr_ms": p.iqr_ms,
            "bytes_moved": p.bytes_moved,
            "gbps": p.bytes_moved / (p.median_ms / 1e3) / 1e9 if p.median_ms > 0 else None,
            "loop_us_per_call": getattr(p, "loop_us_per_call", None),
            "compiled": getattr(p, "compiled", None) or "—",
            "kernel": getattr(p, "kernel", None) or "—",
            # a line per mode and way of compiling: "both" draws each compiled mode twice
            "line": f"{p.mode} · {p.compiled}" if getattr(p, "compiled", None) else p.mode,
        }
        for p in result.sweep
    ]
    columns = ["mode", "side", "elements", "median_ms", "iqr_ms", "bytes_moved", "gbps"]
    columns += ["loop_us_per_call", "compiled", "kernel", "line"]
    return pd.DataFrame(rows, columns=columns)


def _seconds(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.2f} s" if value >= 1 else f"{value * 1e3:.3g} ms"


def _evidence(mode: ModeResult, fig: ModeFigures, own: str = "") -> dict[str, str]:
    """`own`: the run's cache token, which names its own compile-cache writes."""
    by = {c.scenario: c for c in mode.compile}
    first = by.get("first call")
    if "cold" in by:
        taken = by["cold"].measured_in_run  # a run that took it from an earlier one says so
        cold = _seconds(by["cold"].first_call_s) + " (fresh caches"
        cold += f"; from run #{taken})" if taken is not None else ")"
    elif first and first.cache_dirs is None:  # a run from before its cache state was recorded
        cold = _seconds(first.first_call_s) + " (first call, caches as they were)"
    else:
        cold = "—"
    warm = by.get("warm-cache")
    if warm:
        hit = "hit" if warm.fx_cache_hits or warm.aot_cache_hits else "miss"
        said = compile_cache.said(compile_cache.state(warm, own))
        persistence = f"{_seconds(warm.first_call_s)} with the persistent cache ({said or hit})"
    else:
        persistence = "not measured"
    firsts = {}
    first = by.get(OWN_FIRST_CALL) or first  # this job's own, where it took the cold one
    if first is not None and first.cache_dirs is not None:
        state = compile_cache.state(first, own)
        firsts["first call"] = compile_cache.beside(_seconds(first.first_call_s), state)
    process = by.get("warm-process")
    counts = [f"{c.scenario} {c.compiles}, {c.fx_cache_hits}" for c in by.values()]
    breaks = "—" if mode.graph_breaks is None else str(mode.graph_breaks)
    if mode.break_reasons:
        breaks += ": " + "; ".join(mode.break_reasons)
    tolerance = _tolerance(mode)
    names = ", ".join(k.name for k in mode.kernels)
    kernels = f"{mode.kernel_count:g}/call: {names}" if mode.kernel_count is not None else "—"
    steady = fig.steady_state_ms
    # None means "not asked": on CPU because graphs need CUDA, on a GPU because the mode is
    # not a CUDA-graph mode
    on_cpu = str(fig.verdict).startswith("CPU")
    unasked = "n/a (needs CUDA)" if on_cpu else "n/a (not a CUDA-graph mode)"
    graphs = {True: "yes", False: "no", None: unasked}[mode.cuda_graph_compatible]
    if mode.cudagraph_skip:
        graphs += f" ({mode.cudagraph_skip})"
    found = {
        **firsts,
        "cold compile": cold,
        "cache persistence": persistence,
        "warm process (guards + run)": _seconds(process.first_call_s) if process else "—",
        "compiles, FX cache hits": " · ".join(counts) or "—",
        "graph breaks": breaks,
        "tolerance": tolerance,
        **({"gradients": _grads(mode)} if mode.grad_tolerance_passed is not None else {}),
        "profiler kernels": kernels,
        "end-to-end latency": "—" if steady is None else f"{steady:.4g} ms/call",
        "CUDA-graph compatible": graphs,
    }
    if "mega-cache" in by:
        found["mega-cache (saved, loaded in a fresh process)"] = _mega(by["mega-cache"])
    return found


def _tolerance(mode: ModeResult) -> str:
    """The check's verdict: against float64 with its rule (issue 41), else against eager."""
    if mode.tolerance_passed is None:
        return f"not checked: {mode.error}" if mode.error else "not checked"
    verdict = "pass" if mode.tolerance_passed else "FAIL"
    if mode.not_timed:
        return f"{verdict} ({mode.tolerance_rule}): {mode.not_timed}"
    if mode.allowed_err_fp64 is None or mode.max_abs_diff_fp64 is None:  # before issue 41
        return f"{verdict} against eager, max |Δ| {mode.max_abs_diff:.2e}"
    sign = "≤" if mode.tolerance_passed else ">"
    return (
        f"{verdict} ({mode.tolerance_rule}): max err against float64 "
        f"{mode.max_abs_diff_fp64:.2e} {sign} {mode.allowed_err_fp64:.2e} allowed"
    )


def _grads(mode: ModeResult) -> str:
    """The gradients' verdict: each judged against float64 (issue 39), or the one figure of
    a run before they had the bound."""
    verdict = "pass" if mode.grad_tolerance_passed else "FAIL"
    if not mode.grad_checks:
        rel = mode.grad_rel_err_fp64
        return verdict if rel is None else f"{verdict}: max error ÷ largest gradient {rel:.2e}"
    parts = []
    for c in mode.grad_checks:
        if c.problem:
            parts.append(f"{c.name}: {c.problem}")
            continue
        sign = "≤" if c.tolerance_passed else ">"
        parts.append(f"{c.name} {c.max_abs_diff_fp64:.2e} {sign} {c.allowed_err_fp64:.2e}")
    return f"{verdict} against float64: " + "; ".join(parts)


def _mega(c: CompileLatency) -> str:
    if c.first_call_s is None or c.detail.startswith("failed"):
        return c.detail
    hit = "hit" if c.fx_cache_hits else "MISS"
    return f"{_seconds(c.first_call_s)} load + compile ({hit}), {fmt_bytes(c.artifact_bytes)}"


def evidence_frame(result: FusionResult, figures: Sequence[ModeFigures]) -> pd.DataFrame:
    """The deployment checklist, long-form: one row per compiled mode and check."""
    by_mode = {f.mode: f for f in figures}
    rows = [
        {"mode": m.mode, "check": check, "evidence": text}
        for m in result.modes
        if m.mode != "eager"
        for check, text in _evidence(m, by_mode[m.mode], result.cache_token).items()
    ]
    return pd.DataFrame(rows, columns=["mode", "check", "evidence"])


def evidence_table(result: FusionResult, figures: Sequence[ModeFigures]) -> pd.DataFrame:
    """The checklist for reading: one row per check, one column per compiled mode."""
    long = evidence_frame(result, figures)
    if long.empty:
        return long
    wide = long.pivot(index="check", columns="mode", values="evidence")
    order = list(dict.fromkeys(long["check"]))
    return wide.reindex(index=order, columns=list(dict.fromkeys(long["mode"]))).reset_index()
