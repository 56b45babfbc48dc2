"""Which part of the lab's path moves a compiled call's clocks: one variant per process.

python3 -m scripts.evidence.clock_variants WORKLOAD VARIANT [PRESET] [DTYPE]
VARIANT: plain (torch.compile(fn)), fullgraph (fullgraph=True), lab-copy (the lab's
compile_copy: its own code object, fullgraph=True), lab-copy-meta (lab-copy, then the Triton
metadata call the worker makes between its harness and its other clocks), experiment (the
fusion experiment's run() in this process, no worker). Prints one JSON line.
"""

from __future__ import annotations

import json
import statistics
import sys

import torch
from triton.testing import do_bench

from runtime_lab.lab import compile_tools, triton_meta
from runtime_lab.lab.base import Context
from runtime_lab.lab.timing import measure, measure_loop
from runtime_lab.spec import build_spec
from runtime_lab.workloads import ops
from runtime_lab.workloads.fit import spec_params


def _figures(fn, device, meta: bool) -> dict:
    for _ in range(3):
        fn()
    t = measure(fn, device=device, label="x", warmup=10, repeat=50, l2_flush=True)
    out = {"lab_ms": statistics.median(t.device_ms)}
    if meta:
        triton_meta.kernels(fn, 0)
    loop = measure_loop(fn, device, 200)
    out |= {"loop_us": loop.us_per_call, "loop_host_us": loop.host_us_per_call}
    out["do_bench_ms"] = do_bench(fn, warmup=25, rep=100, return_mode="median")
    return out


def main(name: str, variant: str, preset: str = "llama3-8b-4k", dtype: str = "bfloat16") -> None:
    from runtime_lab.fusion.run import experiment
    from runtime_lab.fusion.run.modes import compile_copy

    options = {"workload": name, "modes": "eager,inductor", "compile_latency": False}
    spec = build_spec("fusion", preset, dtype=dtype, device="cuda", options=options)
    device = torch.device("cuda")
    if variant == "experiment":
        result = experiment.run(spec, Context(device=device, progress=lambda *a: None))
        mode = next(m for m in result.modes if m.mode == "inductor")
        clocks = {c.clock: c.median_ms for c in mode.clocks}
        print(json.dumps({"variant": variant, **clocks, "loop_us": mode.loop_us_per_call}))
        return
    work = ops.load(name, spec.shape, dtype, device, spec.seed, spec_params(spec))
    compiled = {
        "plain": lambda: torch.compile(work.fn),
        "fullgraph": lambda: torch.compile(work.fn, fullgraph=True),
    }.get(variant, lambda: compile_copy("inductor", spec))()
    compile_tools.code_modules()
    figures = _figures(lambda: compiled(*work.inputs), device, variant == "lab-copy-meta")
    print(json.dumps({"variant": variant, **figures}))


if __name__ == "__main__":
    main(*sys.argv[1:])
