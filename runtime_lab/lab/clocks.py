"""Other clocks on the same callable: torch.utils.benchmark and, on CUDA, triton.testing.do_bench."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from runtime_lab.results import stats

BENCHMARK_MIN_RUN_S = 0.2  # per mode: enough blocks for a median, short next to a compile
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
    fn: Callable[[], object], device: torch.device, min_run_time_s: float = BENCHMARK_MIN_RUN_S
) -> dict[str, Any]:
    """torch.utils.benchmark.Timer.blocked_autorange: host clock around blocks of back-to-back
    calls (synchronized on CUDA at block ends), no cache flush. One sample per block."""
    from torch.utils import benchmark

    # Timer runs single-threaded unless told; the lab times with the process's thread count
    threads = torch.get_num_threads()
    timer = benchmark.Timer(stmt="fn()", globals={"fn": fn}, num_threads=threads)
    if device.type == "cuda":
        with torch.cuda.device(device):
            found = timer.blocked_autorange(min_run_time=min_run_time_s)
    else:
        found = timer.blocked_autorange(min_run_time=min_run_time_s)
    samples = [t * 1e3 for t in found.times]  # seconds per call, averaged within each block
    sync = "torch.cuda.synchronize() at block ends" if device.type == "cuda" else "synchronous"
    detail = (
        f"host wall clock, {len(samples)} blocks × {found.number_per_run} back-to-back call(s) "
        f"({sync}, {threads} threads), no L2 flush"
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
            }
    return _reading("triton.do_bench", [float(v) for v in found], detail)
