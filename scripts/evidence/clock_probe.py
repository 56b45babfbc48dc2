"""Why a lab figure differs from a clean process: one workload, its clocks in several orders.

python3 -m scripts.evidence.clock_probe WORKLOAD [PRESET] [DTYPE]
Prints one JSON line per step: plain torch.compile of the workload (as a clean process does),
then do_bench, the lab's harness (measure) and the worker's clock sequence (loop,
torch.utils.benchmark, do_bench) on the same callable, in the worker's order and again after.
"""

from __future__ import annotations

import json
import statistics
import sys

import torch
from triton.testing import do_bench

from runtime_lab.lab.clocks import benchmark_clock, do_bench_clock
from runtime_lab.lab.timing import measure, measure_loop
from runtime_lab.spec import build_spec
from runtime_lab.workloads import ops
from runtime_lab.workloads.fit import spec_params


def _say(step: str, **figures) -> None:
    print(json.dumps({"step": step, **figures}), flush=True)


def main(name: str, preset: str = "llama3-8b-4k", dtype: str = "bfloat16") -> None:
    options = {"workload": name, "modes": "eager,inductor"}
    spec = build_spec("fusion", preset, dtype=dtype, device="cuda", options=options)
    device = torch.device("cuda")
    work = ops.load(name, spec.shape, dtype, device, spec.seed, spec_params(spec))
    compiled = torch.compile(work.fn)
    fns = {"eager": work.call, "inductor": lambda: compiled(*work.inputs)}
    for mode, fn in fns.items():
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        for i in range(2):
            _say(f"{mode} do_bench {i}", ms=do_bench(fn, warmup=25, rep=100, return_mode="median"))
        for repeat in (50, 500):
            t = measure(fn, device=device, label=mode, warmup=10, repeat=repeat, l2_flush=True)
            _say(
                f"{mode} lab measure repeat={repeat}",
                ms=statistics.median(t.device_ms),
                host_ms=statistics.median(t.host_ms),
            )
        loop = measure_loop(fn, device, 200)
        _say(f"{mode} loop (200 back to back)", us=loop.us_per_call, host_us=loop.host_us_per_call)
        bench = benchmark_clock(fn, device, typical_s=1e-4)
        _say(f"{mode} torch.utils.benchmark", ms=bench["median_ms"])
        _say(f"{mode} do_bench_clock (the worker's)", ms=do_bench_clock(fn, device)["median_ms"])
        _say(f"{mode} do_bench after", ms=do_bench(fn, warmup=25, rep=100, return_mode="median"))
        t = measure(fn, device=device, label=mode, warmup=10, repeat=50, l2_flush=True)
        _say(f"{mode} lab measure after", ms=statistics.median(t.device_ms))


if __name__ == "__main__":
    main(*sys.argv[1:])
