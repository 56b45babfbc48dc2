"""Derived fusion figures (no torch), computed once per run: per mode, the ceiling, key numbers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import pandas as pd

from runtime_lab.fusion.report import compile_cache as cache
from runtime_lab.fusion.report import step
from runtime_lab.fusion.report.autotune import figures as autotune_figures
from runtime_lab.fusion.report.clocks import clock_medians, clock_rows
from runtime_lab.fusion.report.kernel_table import longest, resources_frame
from runtime_lab.fusion.result import (
    EAGER_TRANSFERS,
    FUSED_TRANSFERS,
    OWN_FIRST_CALL,
    FusionResult,
    ModeResult,
)
from runtime_lab.results import CompileLatency, stats

HOST_BOUND_FRACTION = 0.8  # issuing a call takes ≥ 80 % of its device time: the GPU waits on it


@dataclass(frozen=True)
class ModeFigures:
    """One mode's figures; the timed ones stay None for a mode that was not timed."""

    mode: str
    ran: bool
    error: str | None
    steady_state_ms: float | None = None
    iqr_ms: float | None = None
    noisy: bool | None = None
    samples: int | None = None
    device_ms: float | None = None
    host_ms: float | None = None
    first_call_ms: float | None = None
    loop_us_per_call: float | None = None
    loop_host_us_per_call: float | None = None
    kernel_us_per_call: float | None = None  # the GPU's own time per call (profiler, CUDA)
    verdict: str | None = None
    speedup_vs_eager: float | None = None
    achieved_gbps: float | None = None
    ceiling_fraction: float | None = None
    ceiling_pct: float | None = None
    fewer_kernels_but_slower: bool = False
    achieved_tflops: float | None = None  # the workload's FLOPs over the median time
    intensity: float | None = None  # FLOPs per byte of this mode's bytes model


@dataclass(frozen=True)
class FusionFigures:
    """Every figure of one fusion run, computed once and handed to its report and charts."""

    ceiling_gbps: float | None  # the best measured bandwidth (the copy's in older runs)
    ceiling_source: str  # what measured it
    modes: tuple[ModeFigures, ...]
    clocks: tuple[dict[str, Any], ...]  # per mode and clock: its ratio to the lab's, flagged
    summary: Mapping[str, Any]  # the headline numbers under the names the CLI JSON promises


def steady_ms(mode: ModeResult) -> float | None:
    s = stats(mode.timing.primary_ms) if mode.timing else None
    return s.median if s else None


def ceiling(result: FusionResult) -> tuple[float | None, str]:
    """The best measured bandwidth and what gave it (runs before the add figure: the copy)."""
    if result.ceiling_gbps:
        return result.ceiling_gbps, result.ceiling_source or "copy"
    return result.copy_ceiling_gbps, "copy"


def figures(result: FusionResult, resources: pd.DataFrame | None = None) -> FusionFigures:
    """The run's figures (resources: fk.resources_frame(result), when the caller has it)."""
    best, source = ceiling(result)
    modes = mode_figures(result, best)
    summary = _summary(result, modes, best, source, resources)
    clocks = tuple(clock_rows(result))
    return FusionFigures(best, source, modes, clocks, MappingProxyType(summary))


def key_figures(result: FusionResult) -> dict[str, Any]:
    """The CLI JSON's headline numbers (the registry's figures stage)."""
    return dict(figures(result).summary)


def mode_figures(result: FusionResult, best: float | None) -> tuple[ModeFigures, ...]:
    """Per mode: medians, IQR, host vs device, verdict, speed-up, GB/s, share of `best` GB/s."""
    by_mode = {m.mode: m for m in result.modes}
    eager_ms = steady_ms(by_mode["eager"]) if "eager" in by_mode else None
    eager_kernels = by_mode["eager"].kernel_count if "eager" in by_mode else None
    flops = result.flops_per_call
    # a training step's time over the forward's bytes and FLOPs is no figure (step.HIDDEN_NOTE)
    modeled = result.training_pass == "fwd"
    return tuple(
        _mode(mode, eager_ms, eager_kernels, best, flops, modeled) for mode in result.modes
    )


def _mode(
    mode: ModeResult, eager_ms, eager_kernels, best: float | None, flops: int, modeled: bool
) -> ModeFigures:
    """`modeled` False for a training step: no GB/s, ceiling share, TFLOP/s or intensity."""
    if not mode.timing:
        return ModeFigures(mode.mode, mode.ran, mode.error)
    primary, host = stats(mode.timing.primary_ms), stats(mode.timing.host_ms)
    device = stats(mode.timing.device_ms)
    gbps = mode.bytes_moved / (primary.median / 1e3) / 1e9 if modeled else None
    flops = flops if modeled else 0
    return ModeFigures(
        mode=mode.mode,
        ran=mode.ran,
        error=mode.error,
        steady_state_ms=primary.median,
        iqr_ms=primary.iqr,
        noisy=primary.noisy,
        samples=primary.count,
        device_ms=device.median if device else None,
        host_ms=host.median,
        first_call_ms=mode.timing.first_call_ms,
        loop_us_per_call=mode.loop_us_per_call,
        loop_host_us_per_call=mode.loop_host_us_per_call,
        kernel_us_per_call=kernel_us(mode),
        verdict=_verdict(device, host),
        speedup_vs_eager=eager_ms / primary.median if eager_ms else None,
        achieved_gbps=gbps,
        ceiling_fraction=gbps / best if best and gbps is not None else None,
        ceiling_pct=100 * gbps / best if best and gbps is not None else None,
        fewer_kernels_but_slower=bool(
            eager_ms
            and eager_kernels
            and mode.kernel_count is not None
            and mode.kernel_count < eager_kernels
            and primary.median > eager_ms
        ),
        achieved_tflops=flops / (primary.median / 1e3) / 1e12 if flops else None,
        intensity=flops / mode.bytes_moved if flops and mode.bytes_moved else None,
    )


def kernel_us(mode: ModeResult) -> float | None:
    """The GPU's own time per call: the profiled kernels' and copies' durations summed, launch
    gaps left out. None on a CPU (its rows are host ops, not device work) or where the mode
    was not profiled. A host-bound call's events span the host's pace; this is the GPU's."""
    if not (mode.timing and mode.timing.device_ms and mode.kernels):
        return None
    return sum(k.total_us for k in mode.kernels)


def _verdict(device, host) -> str:
    if device is None:
        return "CPU: synchronous calls (host time is the work)"
    return "host-bound" if host.median >= HOST_BOUND_FRACTION * device.median else "device-bound"


def compiled_mode(result: FusionResult) -> ModeResult | None:
    fused = [m for m in result.modes if m.mode.startswith("inductor") and m.ran]
    preferred = [m for m in fused if m.mode == "inductor"]
    return (preferred or fused or [None])[0]


def compile_record(mode: ModeResult | None, scenario: str) -> CompileLatency | None:
    """A mode's first compile record of a scenario ("cold", "first call", …), if any."""
    return next((c for c in (mode.compile if mode else ()) if c.scenario == scenario), None)


def _latency(mode: ModeResult | None, scenario: str) -> float | None:
    found = compile_record(mode, scenario)
    return found.first_call_s if found else None


# each compile figure and the scenario it reads: its cache state goes beside it, under the
# figure's name with _cache_state for _s (issue 49)
COMPILE_FIGURES = {
    "cold_compile_s": "cold",
    "warm_cache_compile_s": "warm-cache",
    "warm_process_s": "warm-process",
    "fresh_process_s": "fresh-process",
    "mega_cache_s": "mega-cache",
}


def state_key(figure: str) -> str:
    """Where a figure's cache state sits: cold_compile_s -> cold_compile_cache_state."""
    return f"{figure.removesuffix('_s')}_cache_state"


def cache_figures(result: FusionResult, found: dict[str, Any]) -> dict[str, Any]:
    """`found` with the cache state each compile figure and the naive A/B ran with beside it,
    then each compiled mode's first call in this job and its state, and the earlier run the
    compile figures came from where the run took them (compile_from_run); a run recorded
    before issue 49 keeps the summary it had."""
    if not any(c.cache_dirs for m in result.modes for c in m.compile):
        return found
    own, compiled = result.cache_token, compiled_mode(result)
    records = {key: compile_record(compiled, scenario) for key, scenario in COMPILE_FIGURES.items()}
    arms = naive_arms(result) if "naive_speedup" in found else None
    records["naive_speedup"] = compile_record(compiled, arms.record) if arms else None
    placed: dict[str, Any] = {}
    for key, value in found.items():
        placed[key] = value
        if records.get(key) is not None:
            placed[state_key(key)] = cache.state(records[key], own)
    firsts = [(m.mode, own_first_call(m)) for m in result.modes]
    firsts = [(mode, c) for mode, c in firsts if c is not None and c.cache_dirs]
    placed["first_call_s"] = {mode: c.first_call_s for mode, c in firsts}
    placed["first_call_cache_state"] = {mode: cache.state(c, own) for mode, c in firsts}
    if result.compile_from_run is not None:
        placed["compile_from_run"] = result.compile_from_run
    return placed


def own_first_call(mode: ModeResult) -> CompileLatency | None:
    """The mode's first call in this job: the naive A/B's arm keeps it apart where the job
    took that arm's cold first call from an earlier run (OWN_FIRST_CALL)."""
    return compile_record(mode, OWN_FIRST_CALL) or compile_record(mode, NAIVE_RECORD)


# the compiled arm's own first call in this job, kept in the stored run (run_mode records it;
# compile_latencies keeps it beside cold / warm-cache / warm-process since issue 37)
NAIVE_RECORD = "first call"
# what a run stored before that record was kept offers instead, in this order
OLDER_RECORDS = ("warm-cache", "cold")


@dataclass(frozen=True)
class NaiveArms:
    """The two arms of a naive A/B in ms: each first call and steady-state median, k calls,
    and which compile record gave the compiled first call."""

    eager_first_ms: float
    eager_ms: float
    compiled_first_ms: float
    compiled_ms: float
    calls: int
    record: str

    @property
    def speedup(self) -> float | None:
        compiled = self.compiled_first_ms + self.calls * self.compiled_ms
        return (self.eager_first_ms + self.calls * self.eager_ms) / compiled if compiled else None

    @property
    def break_even(self) -> float | None:
        """The call count after which a naive A/B's verdict flips (its two totals cross), or
        None where they never cross after the first call."""
        gain = self.eager_ms - self.compiled_ms
        calls = (self.compiled_first_ms - self.eager_first_ms) / gain if gain else None
        return calls if calls is not None and calls > 0 else None


def naive_arms(result: FusionResult) -> NaiveArms | None:
    """Each arm's first call plus k = repeat calls, the compiled arm's first call being the one
    that compiled in this job: its NAIVE_RECORD (the same record at the headline and at the
    end); a run stored before that record was kept, its warm-cache or cold record (said so by
    `record`); Timing.first_call_ms is taken after the compile, so it is the last resort."""
    eager = next((m for m in result.modes if m.mode == "eager" and m.timing), None)
    compiled = compiled_mode(result)
    if eager is None or compiled is None or compiled.timing is None:
        return None
    first = {c.scenario: c.first_call_s for c in compiled.compile if c.first_call_s is not None}
    record = next((r for r in (NAIVE_RECORD, *OLDER_RECORDS) if r in first), "timed first call")
    compile_s = first.get(record)
    compiled_first = compile_s * 1e3 if compile_s is not None else compiled.timing.first_call_ms
    return NaiveArms(
        eager_first_ms=eager.timing.first_call_ms,
        eager_ms=steady_ms(eager),
        compiled_first_ms=compiled_first,
        compiled_ms=steady_ms(compiled),
        calls=compiled.timing.repeat,
        record=record,
    )


def naive_speedup(result: FusionResult) -> float | None:
    """What an A/B without warm-up would claim (naive_arms):
    (eager first + k·eager median) / (compiled first + k·compiled median)."""
    arms = naive_arms(result)
    return arms.speedup if arms else None


def _ratio(loops: dict[str, float | None], mode: str) -> float | None:
    eager, other = loops.get("eager"), loops.get(mode)
    return eager / other if eager and other else None


def _summary(result, modes, best, source, resources) -> dict[str, Any]:
    """Runs timed before profiling add clocks, naive_speedup and the best ceiling; an older
    stored run keeps the summary it had."""
    eager, compiled = (
        next((m for m in result.modes if m.mode == "eager"), None),
        compiled_mode(result),
    )
    by = {f.mode: f for f in modes}
    eager_ms = by["eager"].steady_state_ms if "eager" in by else None
    compiled_ms = by[compiled.mode].steady_state_ms if compiled and compiled.mode in by else None
    loops = {f.mode: f.loop_us_per_call for f in modes}
    diffs = [m.max_abs_diff for m in result.modes if m.max_abs_diff is not None]
    found = {
        "eager_kernel_names": [k.name for k in eager.kernels] if eager else [],
        "compiled_mode": compiled.mode if compiled else None,
        "compiled_kernel_names": [k.name for k in compiled.kernels] if compiled else [],
        "max_abs_diff": max(diffs) if diffs else None,
        "cold_compile_s": _latency(compiled, "cold"),
        "warm_cache_compile_s": _latency(compiled, "warm-cache"),
        "warm_process_s": _latency(compiled, "warm-process"),
        "fresh_process_s": _latency(compiled, "fresh-process"),
        "steady_state_ms": {f.mode: f.steady_state_ms for f in modes},
        "achieved_gbps": {f.mode: f.achieved_gbps for f in modes},
        "copy_ceiling_gbps": result.copy_ceiling_gbps,
        "predicted_speedup": predicted_speedup(result, eager),
        "measured_speedup": eager_ms / compiled_ms if eager_ms and compiled_ms else None,
        "loop_us_per_call": loops,
        "cuda_graph_inductor_loop_speedup": _ratio(loops, "cuda-graph-inductor"),
        "cuda_graph_loop_speedup": _ratio(loops, "cuda-graph"),
    }
    mega = (
        next((c for c in compiled.compile if c.scenario == "mega-cache"), None)
        if compiled
        else None
    )
    if mega:  # only runs that asked for it: older runs keep the summary they had
        found["mega_cache_s"] = mega.first_call_s
        found["mega_cache_artifact_bytes"] = mega.artifact_bytes
    if result.ideal_bytes:  # recorded since the workload catalog
        found |= workload_figures(result, modes)
    found |= gpu_clock_figures(result)
    kernel_time = {f.mode: f.kernel_us_per_call for f in modes if f.kernel_us_per_call}
    if kernel_time:  # CUDA runs: what the GPU itself spent per call, beside the clocks
        found["kernel_us_per_call"] = kernel_time
    if any(m.tolerance_rule for m in result.modes):  # judged against float64 since issue 41
        found |= tolerance_figures(result)
    if result.training_pass != "fwd":  # a training step: fwd runs keep the summary they had
        found |= pass_figures(result)
    if any(m.autotune is not None for m in result.modes):  # max-autotune on CUDA (issue 40)
        found |= autotune_figures(result)
    if result.device_limits:  # recorded with kernel resources: each mode's main kernel
        found |= resource_figures(result, resources)
    if result.timed_before_profiling:
        pcts = [f.ceiling_pct for f in modes if f.ceiling_pct is not None]
        found |= {
            "clocks": clock_medians(result),
            "naive_speedup": naive_speedup(result),
            "ceiling_gbps": best,
            "ceiling_source": source,
            "add_gbps": result.add_gbps,
            "theoretical_gbps": result.theoretical_gbps,
            "max_ceiling_pct": max(pcts, default=None),
        }
    return cache_figures(result, found)


def predicted_speedup(result: FusionResult, eager: ModeResult | None) -> float | None:
    """Eager's bytes over the ideal model's: the speed-up fusion promises if both are bound
    by memory bandwidth (older runs: eager's element transfers over the fused 3); None for a
    training step (the model is the forward's)."""
    if result.training_pass != "fwd":
        return None
    if result.ideal_bytes:
        return result.eager_bytes / result.ideal_bytes
    return (eager.transfers_per_element if eager else EAGER_TRANSFERS) / FUSED_TRANSFERS


def workload_figures(result: FusionResult, modes) -> dict[str, Any]:
    """The catalog's figures (runs since the workload catalog): bytes, FLOPs, both ceilings."""
    return {
        "workload": result.variant,
        "params": dict(result.params),
        "bound": result.bound,
        "ideal_bytes": result.ideal_bytes,
        "eager_bytes": result.eager_bytes,
        "flops_per_call": result.flops_per_call,
        "arithmetic_intensity": (
            result.flops_per_call / result.ideal_bytes if result.ideal_bytes else None
        ),
        "achieved_tflops": {f.mode: f.achieved_tflops for f in modes if f.achieved_tflops},
        "matmul_tflops": result.matmul_tflops,
        "peak_tflops": result.peak_tflops,
    }


def pass_figures(result: FusionResult) -> dict[str, Any]:
    """A training step's figures: its pass, and per mode the kernels of each pass, with
    each mode's gradients against float64 (issue 39)."""
    ran = [m for m in result.modes if m.ran]
    found = {
        "training_pass": result.training_pass,
        "forward_kernels": {m.mode: m.forward_kernels for m in ran},
        "backward_kernels": {m.mode: m.backward_kernels for m in ran},
        "backward_kernel_names": {m.mode: [k.name for k in m.backward_kernel_rows] for m in ran},
        "grad_rel_err_fp64": {m.mode: m.grad_rel_err_fp64 for m in ran},
    }
    ideal = step.ideal_step_bytes(result)
    if ideal is not None:  # the step's own bytes model (runs since session 16)
        rates = step.step_gbps(result)
        best = result.ceiling_gbps
        found |= {
            "step_ideal_bytes": ideal,
            "step_gbps": rates,
            "step_ceiling_pct": {m: 100 * g / best for m, g in rates.items()} if best else {},
        }
    judged = [m for m in result.modes if m.grad_tolerance_rule]
    if judged:  # gradients under the float64 bound, each over its own reductions
        found |= {
            "grad_max_err_fp64": {m.mode: m.grad_max_abs_diff_fp64 for m in judged},
            "grad_allowed_err_fp64": {m.mode: m.grad_allowed_err_fp64 for m in judged},
            "grad_tolerance_rule": {m.mode: m.grad_tolerance_rule for m in judged},
            "grads_outside_tolerance": [
                f"{m.mode}: {c.name}"
                for m in judged
                for c in m.grad_checks
                if c.tolerance_passed is False
            ],
        }
    kept = [m for m in result.modes if m.saved is not None]
    if kept:  # what each mode's forward saved for its backward
        found |= {
            "saved_tensors": {m.mode: m.saved.tensors for m in kept},
            "saved_bytes": {m.mode: m.saved.bytes for m in kept},
            "saved_activation_bytes": {m.mode: m.saved.activation_bytes for m in kept},
        }
    return found


def tolerance_figures(result: FusionResult) -> dict[str, Any]:
    """Each mode's error against float64, what its rule allowed, the rule; the modes outside
    tolerance (timed all the same) and why any mode was not timed."""
    judged = [m for m in result.modes if m.tolerance_rule]
    return {
        "max_err_fp64": {m.mode: m.max_abs_diff_fp64 for m in judged},
        "allowed_err_fp64": {m.mode: m.allowed_err_fp64 for m in judged},
        "tolerance_rule": {m.mode: m.tolerance_rule for m in judged},
        "outside_tolerance": [m.mode for m in result.modes if m.tolerance_passed is False],
        "not_timed": {m.mode: m.not_timed for m in result.modes if m.not_timed},
    }


def resource_figures(result: FusionResult, resources: pd.DataFrame | None = None) -> dict[str, Any]:
    """Registers, spills and theoretical occupancy of each mode's kernel with the most time."""
    main = longest(resources_frame(result) if resources is None else resources)
    found: dict[str, Any] = {"variant": result.variant}
    for key, column in (
        ("kernel_registers", "registers_per_thread"),
        ("kernel_spilled_registers", "spilled_registers"),
        ("kernel_occupancy_pct", "occupancy_pct"),
        ("kernel_limiting_resource", "limiting_resource"),
    ):
        found[key] = {r["mode"]: _plain(r[column]) for _, r in main.iterrows()}
    return found


def _plain(value: Any) -> Any:
    """A frame cell as JSON wants it: NaN is None, numpy numbers are Python's."""
    if value is None or value != value:
        return None
    return value.item() if hasattr(value, "item") else value


def gpu_clock_figures(result: FusionResult) -> dict[str, Any]:
    """Each timed mode's median SM clock and power-capped share over its timed calls (NVML, on
    CUDA); nothing for a run without them (a CPU run, no NVML, an older run)."""
    timed = [m for m in result.modes if m.timing and m.timing.gpu]
    if not timed:
        return {}
    return {
        "sm_clock_mhz": {m.mode: m.timing.gpu.median_clock_mhz for m in timed},
        "power_capped_pct": {m.mode: m.timing.gpu.power_capped_pct for m in timed},
    }
