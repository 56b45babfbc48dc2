"""Why a lab figure differs from a clean process: one workload, its clocks in several orders.

python3 -m scripts.evidence.clock_probe WORKLOAD [PRESET] [DTYPE] [PASS] [MODES]
Prints one JSON line per step: plain torch.compile of the workload (as a clean process does),
then do_bench, the lab's harness (measure) and the worker's clock sequence (loop,
torch.utils.benchmark, do_bench) on the same callable (the pass's training step, as the lab
and the clean process build it), in the worker's order and again after; each timed phase with
the SM clock and power NVML read over it. Last (a profiler perturbs what follows it), the
kernels' own time per call against the events' span, which tells launch gaps from kernel time.
"""

from __future__ import annotations

import json
import statistics
import sys

import torch
from triton.testing import do_bench

from runtime_lab.lab import training
from runtime_lab.lab.clocks import benchmark_clock, do_bench_clock
from runtime_lab.lab.gpu_state import GpuWatch
from runtime_lab.lab.timing import measure, measure_loop
from runtime_lab.spec import build_spec
from runtime_lab.workloads import ops
from runtime_lab.workloads.fit import spec_params

PROFILED_CALLS = 20


def _say(step: str, **figures) -> None:
    print(json.dumps({"step": step, **figures}), flush=True)


def _gpu(state) -> dict:
    if state is None:
        return {}
    return {"mhz": state.median_clock_mhz, "watts": state.power_w, "capped": state.power_capped_pct}


def _do_bench(fn, device) -> tuple[float, dict]:
    watch = GpuWatch.start(device)
    ms = do_bench(fn, warmup=25, rep=100, return_mode="median")
    return ms, _gpu(watch.stop() if watch else None)


def _measure(fn, device, mode, repeat) -> dict:
    t = measure(fn, device=device, label=mode, warmup=10, repeat=repeat, l2_flush=True)
    return {
        "ms": statistics.median(t.device_ms),
        "host_ms": statistics.median(t.host_ms),
        **_gpu(t.gpu),
    }


def _kernels(fn) -> dict:
    """Per call: each kernel's duration (profiled calls synchronized one by one, the L2 flushed
    before each by bitwise_not_, a kernel no workload launches, so it is told apart: session
    18's first probe flushed with zero_, whose FillFunctor kernel joined the sum)."""
    flush = torch.empty(256 * 2**20 // 4, dtype=torch.int32, device="cuda")
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(PROFILED_CALLS):
            flush.bitwise_not_()
            torch.cuda.synchronize()
            fn()
            torch.cuda.synchronize()
    kernels = [
        e
        for e in prof.events()
        if e.device_type == torch.autograd.DeviceType.CUDA and e.time_range.elapsed_us() > 0
    ]
    by: dict[str, float] = {}
    for e in kernels:
        by[e.name[:90]] = by.get(e.name[:90], 0.0) + e.time_range.elapsed_us() / PROFILED_CALLS
    flushed = {n: us for n, us in by.items() if "bitwise_not" in n}
    step = {n: round(us, 2) for n, us in by.items() if n not in flushed}
    return {
        "kernel_us_per_call": sum(step.values()),
        "flush_us": sum(flushed.values()),
        "kernels": sum(1 for e in kernels if "bitwise_not" not in e.name) / PROFILED_CALLS,
        "by_kernel_us": step,
    }


def main(
    name: str,
    preset: str = "llama3-8b-4k",
    dtype: str = "bfloat16",
    pass_: str = "fwd",
    modes: str = "eager,inductor",
) -> None:
    options = {"workload": name, "modes": modes}
    spec = build_spec("fusion", preset, dtype=dtype, device="cuda", options=options)
    device = torch.device("cuda")
    work = ops.load(name, spec.shape, dtype, device, spec.seed, spec_params(spec))
    made = {"eager": work.fn, "inductor": torch.compile(work.fn)}
    fns = {m: training.step(made[m], work.inputs, pass_, work.module) for m in modes.split(",")}
    _say(
        "start",
        workload=name,
        shape=list(spec.shape),
        pass_=pass_,
        gpu=torch.cuda.get_device_name(),
    )
    for mode, fn in fns.items():
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        for i in range(2):
            ms, gpu = _do_bench(fn, device)
            _say(f"{mode} do_bench {i}", ms=ms, **gpu)
        for repeat in (50, 500):
            _say(f"{mode} lab measure repeat={repeat}", **_measure(fn, device, mode, repeat))
        loop = measure_loop(fn, device, 200)
        _say(f"{mode} loop (200 back to back)", us=loop.us_per_call, host_us=loop.host_us_per_call)
        bench = benchmark_clock(fn, device, typical_s=1e-4)
        _say(f"{mode} torch.utils.benchmark", ms=bench["median_ms"])
        reading = do_bench_clock(fn, device)
        _say(
            f"{mode} do_bench_clock (the worker's)", ms=reading["median_ms"], **_gpu(reading["gpu"])
        )
        ms, gpu = _do_bench(fn, device)
        _say(f"{mode} do_bench after", ms=ms, **gpu)
        _say(f"{mode} lab measure after", **_measure(fn, device, mode, 50))
    for mode, fn in fns.items():  # profilers last: nothing is timed after them
        _say(f"{mode} profiled", **_kernels(fn))


if __name__ == "__main__":
    main(*sys.argv[1:])
