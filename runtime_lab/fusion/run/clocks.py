"""Fusion's second half of a mode: its loop and three clocks (timed phase), then its profile."""

from __future__ import annotations

import statistics
import uuid
from dataclasses import replace

import torch

from runtime_lab import config
from runtime_lab.fusion.result import ClockReading, ModeResult
from runtime_lab.fusion.run.modes import LOOP_CALLS
from runtime_lab.lab import training
from runtime_lab.lab.base import Context
from runtime_lab.lab.clocks import benchmark_clock, do_bench_clock
from runtime_lab.lab.profiling import launch_order, profile_calls, profile_step
from runtime_lab.lab.timing import CPU_FLUSH_BYTES, CUDA_FLUSH_BYTES, measure_loop
from runtime_lab.results import Timing, stats

PROFILED_CALLS = 3


def _lab_detail(timing: Timing, device: torch.device) -> str:
    flush = CUDA_FLUSH_BYTES if device.type == "cuda" else CPU_FLUSH_BYTES
    cache = f"L2 flushed ({flush >> 20} MiB buffer) before each" if timing.l2_flush else "no flush"
    clock = "CUDA events around each call" if timing.device_ms else "host wall time per call"
    return (
        f"the lab's harness: {clock}, {timing.repeat} calls after {timing.warmup} warm-up, {cache}"
    )


def cross_check(mode: ModeResult, fn, device: torch.device, ctx: Context) -> ModeResult:
    """A timed mode's back-to-back loop (launch overhead shows) and its other two clocks, on the
    callable the lab's harness timed; a mode that did not run is returned as it is."""
    if not mode.ran or fn is None or mode.timing is None:
        return mode
    name = mode.mode
    ctx.progress(f"{name}: back-to-back loop", None, None)
    typical_s = statistics.median(mode.timing.primary_ms) / 1e3
    loop = measure_loop(fn, device, LOOP_CALLS, typical_s=typical_s)
    clocks = mode_clocks(
        fn, mode.timing, device, lambda clock: ctx.progress(f"{name}: clock {clock}", None, None)
    )
    return replace(
        mode,
        loop_calls=loop.calls,
        loop_us_per_call=loop.us_per_call,
        loop_host_us_per_call=loop.host_us_per_call,
        loop_us_samples=loop.samples_us,
        clocks=clocks,
    )


def mode_clocks(fn, timing: Timing, device: torch.device, stage=None) -> tuple[ClockReading, ...]:
    """The lab's samples (already taken) beside torch.utils.benchmark and, on CUDA, do_bench.
    stage(name) names each clock as a stage of the job's timeline (where the time went)."""
    stage = stage or (lambda name: None)
    samples = timing.primary_ms
    lab = stats(samples)
    detail = _lab_detail(timing, device)
    found = [ClockReading("lab", lab.median, lab.iqr, tuple(samples), detail, timing.gpu)]
    stage("torch.utils.benchmark")
    found.append(ClockReading(**benchmark_clock(fn, device, typical_s=lab.median / 1e3)))
    if device.type == "cuda":
        stage("triton.do_bench")
    bench = do_bench_clock(fn, device)
    if bench is not None:
        found.append(ClockReading(**bench))
    return tuple(found)


def profile_mode(
    mode: ModeResult, fn, device: torch.device, ops: tuple = (), fused: bool = False
) -> ModeResult:
    """Kernel list and Chrome trace of a few warm calls. Called only after every timed phase of
    the job: a profiler session leaves the process slower (H200: eager 256² 40 → 45 µs/call).
    ops: eager's op list with bytes (workloads/ops.eager_call), for each kernel's bytes per
    launch; fused: the mode runs Inductor's code (one kernel then moves the whole call's bytes)."""
    trace = config.data_dir() / "traces" / f"{uuid.uuid4().hex[:12]}-{mode.mode}.json"
    step = isinstance(fn, training.Step)
    try:
        if step:  # a training step: its kernels split by pass too
            kernels, split = profile_step(fn, device, PROFILED_CALLS, trace)
        else:
            kernels = profile_calls(fn, device, PROFILED_CALLS, trace)
        if device.type == "cuda" and not step:  # the bytes model is the forward's
            kernels = _with_bytes(kernels, mode, launch_order(trace), ops, fused)
    except Exception as exc:  # the timings stand; say why there is no kernel list
        return replace(mode, error=f"profiling failed: {type(exc).__name__}: {exc}"[:2000])
    count = _count(kernels, device)
    found = replace(mode, kernels=kernels, kernel_count=count, trace_file=str(trace))
    if not step:  # the forward alone: all of its kernels are the forward's
        return replace(found, forward_kernels=count)
    forward = split.forward if fn.step == "fwd_bwd" else ()
    return replace(
        found,
        forward_kernels=_count(forward, device) if fn.step == "fwd_bwd" else None,
        backward_kernels=_count(split.backward, device),
        forward_kernel_rows=forward,
        backward_kernel_rows=split.backward,
    )


def _count(kernels: tuple, device: torch.device) -> float:
    """Launches per call: every device kernel on a GPU, compute rows (not bookkeeping) on a CPU."""
    return sum(k.calls_per_run for k in kernels if device.type == "cuda" or _is_compute(k.name))


def _with_bytes(kernels: tuple, mode: ModeResult, order: tuple, ops: tuple, fused: bool) -> tuple:
    """Each kernel's share of the bytes model. A fused mode's one kernel moves the whole call's
    bytes; an unfused mode launches one kernel per op in op order, so the k-th launch of a call
    moves op k's reads + writes (a name launched for several ops: their mean). Anything else
    (extra launches, several fused kernels) is left unknown rather than guessed."""
    if fused and len(kernels) == 1:
        if kernels[0].calls_per_run == 1:
            return (replace(kernels[0], bytes_per_launch=mode.bytes_moved),)
        return kernels
    if fused or not ops or len(order) != len(ops) * PROFILED_CALLS:
        return kernels
    moved: dict[str, list[int]] = {}
    for i, name in enumerate(order):
        op = ops[i % len(ops)]
        moved.setdefault(name, []).append(op.read_bytes + op.write_bytes)
    return tuple(
        replace(k, bytes_per_launch=round(sum(moved[k.name]) / len(moved[k.name])))
        if k.name in moved
        else k
        for k in kernels
    )


def _is_compute(name: str) -> bool:
    return "cpp_fused" in name or name.startswith("aten::")
