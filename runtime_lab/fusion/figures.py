"""Derived fusion figures (no torch): speed-ups, verdicts, GB/s against the ceiling, key numbers."""

from __future__ import annotations

from typing import Any

from runtime_lab.fusion.clocks import clock_medians
from runtime_lab.fusion.frames_kernels import longest, resources_frame
from runtime_lab.fusion.result import EAGER_TRANSFERS, FUSED_TRANSFERS, FusionResult, ModeResult
from runtime_lab.results import stats

HOST_BOUND_FRACTION = (
    0.8  # issuing a call takes ≥ 80 % of its device time: the GPU waits on the host
)


def steady_ms(mode: ModeResult) -> float | None:
    s = stats(mode.timing.primary_ms) if mode.timing else None
    return s.median if s else None


def ceiling(result: FusionResult) -> tuple[float | None, str]:
    """The best measured bandwidth and what gave it (runs before the add figure: the copy)."""
    if result.ceiling_gbps:
        return result.ceiling_gbps, result.ceiling_source or "copy"
    return result.copy_ceiling_gbps, "copy"


def mode_figures(result: FusionResult) -> list[dict[str, Any]]:
    """One dict per mode: medians, IQR, host vs device, verdict, speed-up, GB/s, ceiling share."""
    by_mode = {m.mode: m for m in result.modes}
    eager_ms = steady_ms(by_mode["eager"]) if "eager" in by_mode else None
    eager_kernels = by_mode["eager"].kernel_count if "eager" in by_mode else None
    best, _ = ceiling(result)
    rows = []
    for mode in result.modes:
        row: dict[str, Any] = {"mode": mode.mode, "ran": mode.ran, "error": mode.error}
        if mode.timing:
            primary, host = stats(mode.timing.primary_ms), stats(mode.timing.host_ms)
            device = stats(mode.timing.device_ms)
            gbps = mode.bytes_moved / (primary.median / 1e3) / 1e9
            row |= {
                "steady_state_ms": primary.median,
                "iqr_ms": primary.iqr,
                "noisy": primary.noisy,
                "samples": primary.count,
                "device_ms": device.median if device else None,
                "host_ms": host.median,
                "first_call_ms": mode.timing.first_call_ms,
                "loop_us_per_call": mode.loop_us_per_call,
                "loop_host_us_per_call": mode.loop_host_us_per_call,
                "verdict": _verdict(device, host),
                "speedup_vs_eager": eager_ms / primary.median if eager_ms else None,
                "achieved_gbps": gbps,
                "ceiling_fraction": gbps / best if best else None,
                "ceiling_pct": 100 * gbps / best if best else None,
                "fewer_kernels_but_slower": bool(
                    eager_ms
                    and eager_kernels
                    and mode.kernel_count is not None
                    and mode.kernel_count < eager_kernels
                    and primary.median > eager_ms
                ),
            }
        rows.append(row)
    return rows


def _verdict(device, host) -> str:
    if device is None:
        return "CPU: synchronous calls (host time is the work)"
    return "host-bound" if host.median >= HOST_BOUND_FRACTION * device.median else "device-bound"


def _compiled(result: FusionResult) -> ModeResult | None:
    fused = [m for m in result.modes if m.mode.startswith("inductor") and m.ran]
    preferred = [m for m in fused if m.mode == "inductor"]
    return (preferred or fused or [None])[0]


def _latency(mode: ModeResult | None, scenario: str) -> float | None:
    for c in mode.compile if mode else ():
        if c.scenario == scenario:
            return c.first_call_s
    return None


def naive_speedup(result: FusionResult) -> float | None:
    """What an A/B without warm-up would claim: each arm's first call plus k = repeat calls,
    eager's total over the compiled mode's, where the compiled first call is the one that
    compiled in this job (its "first call" or warm-cache record; Timing.first_call_ms is taken
    after the compile):  (eager first + k·eager median) / (compiled first + k·compiled median)."""
    eager = next((m for m in result.modes if m.mode == "eager" and m.timing), None)
    compiled = _compiled(result)
    if eager is None or compiled is None or compiled.timing is None:
        return None
    k = compiled.timing.repeat
    first = {c.scenario: c.first_call_s for c in compiled.compile}
    compile_s = first.get("first call", first.get("warm-cache", first.get("cold")))
    compiled_first = compile_s * 1e3 if compile_s is not None else compiled.timing.first_call_ms
    naive_eager = eager.timing.first_call_ms + k * steady_ms(eager)
    naive_compiled = compiled_first + k * steady_ms(compiled)
    return naive_eager / naive_compiled if naive_compiled > 0 else None


def key_figures(
    result: FusionResult, per_mode: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The headline numbers, under the names the CLI JSON promises (per_mode: mode_figures,
    when the caller has them already). Runs timed before profiling add clocks, naive_speedup
    and the best ceiling; an older stored run keeps the summary it had."""
    by_mode = {m.mode: m for m in result.modes}
    eager, compiled = by_mode.get("eager"), _compiled(result)
    figures = {f["mode"]: f for f in per_mode or mode_figures(result)}
    eager_ms = figures.get("eager", {}).get("steady_state_ms")
    compiled_ms = figures.get(compiled.mode, {}).get("steady_state_ms") if compiled else None
    loops = {k: v.get("loop_us_per_call") for k, v in figures.items()}
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
        "steady_state_ms": {k: v.get("steady_state_ms") for k, v in figures.items()},
        "achieved_gbps": {k: v.get("achieved_gbps") for k, v in figures.items()},
        "copy_ceiling_gbps": result.copy_ceiling_gbps,
        # the bytes model: eager's recorded transfers (the long chain's come from its op list)
        "predicted_speedup": (eager.transfers_per_element if eager else EAGER_TRANSFERS)
        / FUSED_TRANSFERS,
        "measured_speedup": eager_ms / compiled_ms if eager_ms and compiled_ms else None,
        "loop_us_per_call": loops,
        "cuda_graph_inductor_loop_speedup": (
            loops["eager"] / loops["cuda-graph-inductor"]
            if loops.get("eager") and loops.get("cuda-graph-inductor")
            else None
        ),
        "cuda_graph_loop_speedup": (
            loops["eager"] / loops["cuda-graph"]
            if loops.get("eager") and loops.get("cuda-graph")
            else None
        ),
    }
    mega = (
        next((c for c in compiled.compile if c.scenario == "mega-cache"), None)
        if compiled
        else None
    )
    if mega:  # only runs that asked for it: older runs keep the summary they had
        found |= {
            "mega_cache_s": mega.first_call_s,
            "mega_cache_artifact_bytes": mega.artifact_bytes,
        }
    if result.device_limits:  # recorded with kernel resources: each mode's main kernel
        found |= resource_figures(result)
    if result.timed_before_profiling:
        best, source = ceiling(result)
        found |= {
            "clocks": clock_medians(result),
            "naive_speedup": naive_speedup(result),
            "ceiling_gbps": best,
            "ceiling_source": source,
            "add_gbps": result.add_gbps,
            "theoretical_gbps": result.theoretical_gbps,
            "max_ceiling_pct": max(
                (f["ceiling_pct"] for f in figures.values() if f.get("ceiling_pct") is not None),
                default=None,
            ),
        }
    return found


def resource_figures(result: FusionResult) -> dict[str, Any]:
    """Registers, spills and theoretical occupancy of each mode's kernel with the most time."""
    main = longest(resources_frame(result))
    figures: dict[str, Any] = {"variant": result.variant}
    for key, column in (
        ("kernel_registers", "registers_per_thread"),
        ("kernel_spilled_registers", "spilled_registers"),
        ("kernel_occupancy_pct", "occupancy_pct"),
        ("kernel_limiting_resource", "limiting_resource"),
    ):
        figures[key] = {r["mode"]: _plain(r[column]) for _, r in main.iterrows()}
    return figures


def _plain(value: Any) -> Any:
    """A frame cell as JSON wants it: NaN is None, numpy numbers are Python's."""
    if value is None or value != value:
        return None
    return value.item() if hasattr(value, "item") else value
