"""The one timing harness: first call apart, warm-up, then CUDA events (device) and host wall time."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import psutil
import torch

from runtime_lab.lab.gpu_state import GpuWatch
from runtime_lab.results import Timing

# Like triton.testing.do_bench: overwrite a buffer bigger than the last-level cache between
# samples so each call starts cold. 256 MiB covers the H200's 60 MB L2 several times over.
CUDA_FLUSH_BYTES = 256 * 2**20
CPU_FLUSH_BYTES = 64 * 2**20

# /proc/stat and a process's CPU times move in 10 ms ticks per core: a shorter phase's share of
# the cores could be off by tens of percent, so it is not reported
MIN_CPU_PHASE_S = 0.1
_BUSY_FIELDS = ("user", "nice", "system", "irq", "softirq", "steal")  # user already holds guest

# Loop figures: the median of up to LOOP_REPEATS loops (at least MIN_LOOPS) within LOOP_BUDGET_S
LOOP_REPEATS = 20
MIN_LOOPS = 5
# a small call fills its 20 loops in milliseconds; a large one (0.26 ms at 4096² on the H100)
# gets MIN_LOOPS and a few more: 0.5 s took 0.55-0.58 s per mode there, a third of the headline
LOOP_BUDGET_S = 0.25
MIN_LOOP_CALLS = 5


@dataclass(frozen=True)
class LoopTiming:
    us_per_call: float  # median over the loops: device (CUDA events) or wall (CPU)
    host_us_per_call: float  # median host time to issue one call
    samples_us: tuple[float, ...]  # per-call figure of each loop, raw
    calls: int = 0  # calls per loop (fewer than asked when a call is slow)


Progress = Callable[[str, int | None, int | None], None]


def _noop(stage: str, done: int | None = None, total: int | None = None) -> None:
    return None


def measure(
    fn: Callable[[], object],
    *,
    device: torch.device,
    label: str,
    warmup: int,
    repeat: int,
    l2_flush: bool,
    progress: Progress = _noop,
) -> Timing:
    """Time fn: its first call separately (it may compile or allocate), then `repeat` samples."""
    cuda = device.type == "cuda"
    sync = (lambda: torch.cuda.synchronize(device)) if cuda else (lambda: None)
    sync()
    start = time.perf_counter()
    fn()
    sync()
    first_call_ms = (time.perf_counter() - start) * 1e3
    for i in range(warmup):
        fn()
        progress(f"{label}: warm-up {i + 1}/{warmup}", i + 1, warmup)
    sync()
    flush = _flush_buffer(device) if l2_flush else None
    watch = CpuWatch()
    gpu = GpuWatch.start(device)
    if cuda:
        device_ms, host_ms = _cuda_samples(fn, device, repeat, flush, label, progress)
    else:
        device_ms, host_ms = (), _host_samples(fn, repeat, flush, label, progress)
    others_pct, self_pct = watch.shares()
    return Timing(
        label=label,
        clock="cuda-events" if cuda else "host-wall",
        device_ms=tuple(device_ms),
        host_ms=tuple(host_ms),
        first_call_ms=first_call_ms,
        warmup=warmup,
        repeat=repeat,
        l2_flush=l2_flush,
        cpu_others_pct=others_pct,
        cpu_self_pct=self_pct,
        gpu=gpu.stop() if gpu else None,
    )


class CpuWatch:
    """Who used the host's CPU between construction and shares(): this process or others."""

    def __init__(self) -> None:
        self._proc = psutil.Process()
        self._wall = time.monotonic()
        self._busy, self._own = self._read()

    def _read(self) -> tuple[float, float]:
        system = psutil.cpu_times()
        own = self._proc.cpu_times()
        return sum(getattr(system, f, 0.0) for f in _BUSY_FIELDS), own.user + own.system

    def shares(self) -> tuple[float | None, float | None]:
        """(others %, this process %) of all the host's cores; (None, None) if too short."""
        wall = time.monotonic() - self._wall
        if wall < MIN_CPU_PHASE_S:
            return None, None
        try:
            busy, own = self._read()
        except psutil.Error:
            return None, None
        capacity = wall * (psutil.cpu_count() or 1)
        own_s = own - self._own
        others_s = max(0.0, busy - self._busy - own_s)
        # /proc/stat counts in ticks (10 ms per core): over a short phase that rounding alone
        # read 104.7 % once (2 cores, CI), so a share is capped at the whole host
        return (
            min(100.0, round(100 * others_s / capacity, 1)),
            min(100.0, round(100 * own_s / capacity, 1)),
        )


def _flush_buffer(device: torch.device) -> torch.Tensor:
    size = CUDA_FLUSH_BYTES if device.type == "cuda" else CPU_FLUSH_BYTES
    return torch.empty(size // 4, dtype=torch.int32, device=device)


def _cuda_samples(fn, device, repeat, flush, label, progress):
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(repeat)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(repeat)]
    host_ms = []
    stream = torch.cuda.current_stream(device)
    for i in range(repeat):
        if flush is not None:
            flush.zero_()  # outside the events: the flush is not part of the call
        starts[i].record(stream)
        t0 = time.perf_counter()
        fn()
        host_ms.append((time.perf_counter() - t0) * 1e3)
        ends[i].record(stream)
        progress(f"{label}: timing {i + 1}/{repeat}", i + 1, repeat)
    torch.cuda.synchronize(device)
    device_ms = [s.elapsed_time(e) for s, e in zip(starts, ends, strict=True)]
    return device_ms, host_ms


def _host_samples(fn, repeat, flush, label, progress):
    host_ms = []
    for i in range(repeat):
        if flush is not None:
            flush.zero_()
        t0 = time.perf_counter()
        fn()
        host_ms.append((time.perf_counter() - t0) * 1e3)
        progress(f"{label}: timing {i + 1}/{repeat}", i + 1, repeat)
    return host_ms


def measure_loop(
    fn: Callable[[], object],
    device: torch.device,
    calls: int,
    *,
    loops: int = LOOP_REPEATS,
    budget_s: float = LOOP_BUDGET_S,
    typical_s: float | None = None,
) -> LoopTiming:
    """Per-call time of `calls` back-to-back calls (one event pair, no flush): the throughput a
    loop sees, launch overhead included. One untimed loop first (after a flushed phase the GPU
    and the host caches are cold), then the median of up to `loops` loops within `budget_s`
    (at least MIN_LOOPS): a single loop of a 3 µs graph replay swings by tens of percent.
    With `typical_s` (a call's measured time) a slow call gets fewer calls per loop, so the
    untimed loop and MIN_LOOPS loops fit the budget (a 0.2 s CPU call: 5, not 200)."""
    if typical_s and typical_s > 0:
        fit = int(budget_s / ((MIN_LOOPS + 1) * typical_s))
        calls = max(MIN_LOOP_CALLS, min(calls, fit))
    _one_loop(fn, device, calls)
    samples: list[tuple[float, float]] = []
    t0 = time.perf_counter()
    while len(samples) < loops and (
        len(samples) < MIN_LOOPS or time.perf_counter() - t0 < budget_s
    ):
        samples.append(_one_loop(fn, device, calls))
    return LoopTiming(
        us_per_call=statistics.median(s[0] for s in samples),
        host_us_per_call=statistics.median(s[1] for s in samples),
        samples_us=tuple(s[0] for s in samples),
        calls=calls,
    )


def _one_loop(fn: Callable[[], object], device: torch.device, calls: int) -> tuple[float, float]:
    """(device or wall µs, host-issue µs) per call over one loop of `calls` calls."""
    cuda = device.type == "cuda"
    if cuda:
        torch.cuda.synchronize(device)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    host_us = (time.perf_counter() - t0) * 1e6 / calls
    if not cuda:
        return host_us, host_us
    end.record()
    torch.cuda.synchronize(device)
    return start.elapsed_time(end) * 1e3 / calls, host_us
