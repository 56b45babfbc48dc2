"""Fusion runs side by side: figures it leaves out, their raw samples, the overlaid charts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import pandas as pd

from runtime_lab.compare import charts as cc
from runtime_lab.compare.kernels import Kernel
from runtime_lab.fusion.info import FUSION_MODES
from runtime_lab.fusion.report import frames as ff
from runtime_lab.fusion.report.figures import ceiling, compiled_mode, mode_figures
from runtime_lab.fusion.report.kernel_table import short_kernel_name, triton_for
from runtime_lab.fusion.report.verdict import quartile_speedups
from runtime_lab.fusion.result import FusionResult, ModeResult
from runtime_lab.results import KernelRow

# every key figure is compared: the bytes model's predicted speed-up too, which is each
# workload's own (eager's bytes over the ideal), not the seed's 11/3 (its ratio has no noise
# verdict: a model, one number); not the run a run's compile figures came from, a name
IGNORED: tuple[str, ...] = ("compile_from_run",)


def samples(result: FusionResult) -> dict[str, tuple[float, ...]]:
    """The raw samples behind each figure that is a median of them."""
    found: dict[str, tuple[float, ...]] = {}
    for mode in result.modes:
        if mode.timing:
            primary = mode.timing.primary_ms
            found[f"steady_state_ms.{mode.mode}"] = primary
            if mode.bytes_moved and result.training_pass == "fwd":  # a step's is no figure
                # GB/s of each call: a monotone map of its time, so its quartiles map too
                gbps = tuple(mode.bytes_moved / (t / 1e3) / 1e9 for t in primary if t > 0)
                found[f"achieved_gbps.{mode.mode}"] = gbps
        if mode.loop_us_samples:
            found[f"loop_us_per_call.{mode.mode}"] = mode.loop_us_samples
        for clock in mode.clocks:
            if clock.samples_ms:
                found[f"clocks.{mode.mode}.{clock.clock}"] = clock.samples_ms
    return found


def spreads(result: FusionResult) -> dict[str, tuple[float, float, int]]:
    """The measured speed-up's spread, (low, high, samples): the speed-up within both arms'
    IQRs (the verdict's own range), so its change gets a noise verdict by the rule a time's does."""
    compiled = compiled_mode(result)
    found = quartile_speedups(result, compiled.mode) if compiled else None
    return {"measured_speedup": found} if found else {}


def _launch(row: KernelRow, mode: ModeResult) -> str:
    """Grid, block, registers and the Triton config a kernel launched with ("" on CPU)."""
    parts = [f"grid {row.grid}" if row.grid else "", f"block {row.block}" if row.block else ""]
    parts.append(f"{row.registers} regs" if row.registers else "")
    found = triton_for(row, mode)
    parts.append(found.config if found and found.config else "")
    return " · ".join(p for p in parts if p)


def kernels(result: FusionResult) -> dict[str, tuple[Kernel, ...]]:
    """Each mode's profiled kernels for the kernel diff (compare/kernels.py), each joined to
    the ops and user lines its compile evidence records (the profiler names a C++ kernel
    graph_N_cpp_fused_…, a Triton one by its own name)."""
    found = {}
    for mode in result.modes:
        if not mode.ran:
            continue
        sources = mode.compile_evidence.kernels if mode.compile_evidence else ()
        rows = []
        for row in mode.kernels:
            src = next(
                (k for k in sources if row.name == k.kernel or row.name.endswith(f"_{k.kernel}")),
                None,
            )
            rows.append(
                Kernel(
                    mode=mode.mode,
                    name=row.name,
                    us_per_call=row.total_us,
                    launches_per_call=row.calls_per_run,
                    launch=_launch(row, mode),
                    aten_ops=src.aten_ops if src else (),
                    lowered_ops=src.post_grad_ops if src else (),
                    source_lines=src.source_lines if src else (),
                    shown=short_kernel_name(row.name),  # CUDA templates run to 400 characters
                )
            )
        found[mode.mode] = tuple(rows)
    return found


def _steady(result: FusionResult) -> pd.DataFrame:
    """Each mode's median and quartiles in its primary clock (device time where there is one)."""
    columns = ["mode", "clock", "median_ms", "q1_ms", "q3_ms", "count", "noisy"]
    summary = ff.timing_summary(result)
    if summary.empty:
        return pd.DataFrame(columns=columns)
    with_device = set(summary.loc[summary["clock"] == "device", "label"])
    keep = summary[(summary["clock"] == "device") | ~summary["label"].isin(with_device)]
    return keep.rename(columns={"label": "mode"})[columns]


def _kernels(result: FusionResult) -> pd.DataFrame:
    modes = ff.modes_frame(result, mode_figures(result, ceiling(result)[0]))
    return modes[["mode", "status", "kernels_per_call", "steady_state_ms"]]


def _compile(result: FusionResult) -> pd.DataFrame:
    """One row per mode and scenario: the first call's seconds (the phases are the page's)."""
    frame = ff.compile_frame(result).drop_duplicates(["mode", "scenario"])
    frame = frame.dropna(subset=["first_call_s"])  # not measured: nothing to place on the axis
    frame = frame.assign(row=frame["mode"] + " · " + frame["scenario"])
    return frame[["row", "mode", "scenario", "first_call_s", "compiles", "fx_cache_hits"]]


def _rank(values: Sequence[str], value: str) -> int:
    return values.index(value) if value in values else len(values)


def _compile_order(data: pd.DataFrame) -> list[str]:
    """Rows in the modes' order, then the scenarios' (cold before warm)."""
    pairs = set(zip(data.get("mode", ()), data.get("scenario", ()), strict=True))
    ranked = sorted(
        pairs, key=lambda p: (_rank(FUSION_MODES, p[0]), _rank(ff.SCENARIO_ORDER, p[1]))
    )
    return [f"{mode} · {scenario}" for mode, scenario in ranked]


def charts(results: Sequence[tuple[str, FusionResult]]) -> list[tuple[str, Any]]:
    """Steady-state time and kernels per call per mode, compile latency per scenario."""
    runs = [name for name, _ in results]
    steady = cc.with_run(results, _steady)
    kernels = cc.with_run(results, _kernels)
    first = cc.with_run(results, _compile)
    run = alt.Tooltip("run:N")
    steady_tip = [
        run,
        alt.Tooltip("mode:N"),
        alt.Tooltip("clock:N"),
        alt.Tooltip("median_ms:Q", format=".4f", title="median (ms)"),
        alt.Tooltip("q1_ms:Q", format=".4f", title="q1 (ms)"),
        alt.Tooltip("q3_ms:Q", format=".4f", title="q3 (ms)"),
        alt.Tooltip("count:Q", title="samples"),
        alt.Tooltip("noisy:N", title="noisy (IQR > 10 %)"),
    ]
    kernel_tip = [
        run,
        alt.Tooltip("mode:N"),
        alt.Tooltip("status:N"),
        alt.Tooltip("kernels_per_call:Q", format=".3~g", title="kernels per call"),
        alt.Tooltip("steady_state_ms:Q", format=".4f", title="median ms per call"),
    ]
    compile_tip = [
        run,
        alt.Tooltip("mode:N"),
        alt.Tooltip("scenario:N"),
        alt.Tooltip("first_call_s:Q", format=".4f", title="first call (s)"),
        alt.Tooltip("compiles:Q"),
        alt.Tooltip("fx_cache_hits:Q", title="FX cache hits"),
    ]
    order = list(FUSION_MODES)
    return cc.present(
        [
            (
                "Steady-state time per call, by mode (median and IQR, log scale)",
                cc.spread_points(
                    steady,
                    runs,
                    y="mode",
                    x="median_ms",
                    low="q1_ms",
                    high="q3_ms",
                    x_title="ms per call (log)",
                    tooltip=steady_tip,
                    order=order,
                ),
            ),
            (
                "Kernels per call, by mode",
                cc.grouped_bars(
                    kernels,
                    runs,
                    y="mode",
                    x="kernels_per_call",
                    x_title="kernel launches per call",
                    tooltip=kernel_tip,
                    order=order,
                ),
            ),
            (
                "Compile latency per scenario (first call, log scale)",
                cc.spread_points(
                    first,
                    runs,
                    y="row",
                    x="first_call_s",
                    low="first_call_s",
                    high="first_call_s",
                    x_title="first call (s, log)",
                    tooltip=compile_tip,
                    order=_compile_order(first),
                ),
            ),
        ]
    )
