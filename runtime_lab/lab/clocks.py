"""Other clocks on the same callable: torch.utils.benchmark and, on CUDA, triton.testing.do_bench."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from typing import Any

import torch

from runtime_lab.lab.gpu_state import GpuWatch
from runtime_lab.results import stats

BENCHMARK_MIN_RUN_S = 0.2  # per mode: enough blocks for a median, short next to a compile
BLOCK_S = 0.02  # a block's calls: the sync at its end (10-20 µs on the H100) is under 0.1 %
MIN_BLOCKS, MAX_BLOCKS = 3, 10
DO_BENCH_WARMUP_MS = 25  # do_bench's own defaults, stated so the detail can name them
DO_BENCH_REP_MS = 100


def _reading(clock: str, samples_ms: list[float], detail: str) -> dict[str, Any]:
    s = stats(samples_ms)
    return {
        "clock": clock,
        "median_ms": s.median,
        "iqr_ms": s.iqr,
        "samples_ms": tuple(samples_ms),
        "detail": detail,
    }


def benchmark_clock(
    fn: Callable[[], object],
    device: torch.device,
    min_run_time_s: float = BENCHMARK_MIN_RUN_S,
    typical_s: float | None = None,
) -> dict[str, Any]:
    """torch.utils.benchmark.Timer: host clock around blocks of back-to-back calls
    (synchronized on CUDA at block ends), no cache flush. One sample per block.
    With typical_s (the lab's median call), blocks of about BLOCK_S each, as many as fit
    min_run_time_s (3 to MAX_BLOCKS): blocked_autorange sizes its blocks so the sync is 1e-4
    of one, 0.1 s and up, and took 0.55-1.1 s per mode on the H100 at 4096² (2026-12-05)."""
    from torch.utils import benchmark

    # Timer runs single-threaded unless told; the lab times with the process's thread count
    threads = torch.get_num_threads()
    timer = benchmark.Timer(stmt="fn()", globals={"fn": fn}, num_threads=threads)
    with torch.cuda.device(device) if device.type == "cuda" else contextlib.nullcontext():
        if typical_s and typical_s > 0:
            number = max(1, math.ceil(BLOCK_S / typical_s))
            blocks = int(min_run_time_s / (number * typical_s))
            blocks = max(MIN_BLOCKS, min(MAX_BLOCKS, blocks))
            times = [timer.timeit(number).times[0] for _ in range(blocks)]
            how = f"Timer.timeit, blocks sized from the lab's median to ~{BLOCK_S * 1e3:g} ms"
        else:
            found = timer.blocked_autorange(min_run_time=min_run_time_s)
            times, number, how = found.times, found.number_per_run, "blocked_autorange"
    samples = [t * 1e3 for t in times]  # seconds per call, averaged within each block
    sync = "torch.cuda.synchronize() at block ends" if device.type == "cuda" else "synchronous"
    detail = (
        f"host wall clock, {len(samples)} blocks × {number} back-to-back call(s) "
        f"({how}; {sync}, {threads} threads), no L2 flush"
    )
    return _reading("torch.utils.benchmark", samples, detail)


def do_bench_clock(fn: Callable[[], object], device: torch.device) -> dict[str, Any] | None:
    """triton.testing.do_bench: CUDA events per call, L2 flushed by triton itself before each.
    None off CUDA or where triton does not import."""
    if device.type != "cuda":
        return None
    try:
        from triton.testing import do_bench
    except Exception:  # no triton, or one that does not load here: the other clocks still stand
        return None
    detail = (
        f"CUDA events per call, warm-up {DO_BENCH_WARMUP_MS} ms, rep {DO_BENCH_REP_MS} ms; "
        "triton zeroes its own 256 MB buffer before every call (L2 flushed whatever the lab's "
        "l2_flush says)"
    )
    watch = GpuWatch.start(device)
    with torch.cuda.device(device):
        try:
            found = do_bench(fn, warmup=DO_BENCH_WARMUP_MS, rep=DO_BENCH_REP_MS, return_mode="all")
        except (TypeError, ValueError, AssertionError):  # a triton without return_mode="all"
            q1, median, q3 = do_bench(
                fn, warmup=DO_BENCH_WARMUP_MS, rep=DO_BENCH_REP_MS, quantiles=[0.25, 0.5, 0.75]
            )
            return {
                "clock": "triton.do_bench",
                "median_ms": float(median),
                "iqr_ms": float(q3) - float(q1),
                "samples_ms": (),
                "detail": detail + "; quantiles only (this triton has no return_mode='all')",
                "gpu": watch.stop() if watch else None,
            }
    reading = _reading("triton.do_bench", [float(v) for v in found], detail)
    return reading | {"gpu": watch.stop() if watch else None}
