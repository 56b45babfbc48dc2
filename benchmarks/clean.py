"""Clean reference processes, the workload alone without the lab: `python -m benchmarks.clean ...`."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import tempfile
from typing import Any

from benchmarks.serving import REPO

LOOP_CALLS, LOOPS, LOOP_WARMUP = 200, 20, 50  # as the lab's loop figure: 200 calls, no flush
TIMEOUT_S = 600


def reference(*args: str) -> dict[str, Any]:
    """Run one clean process (a fresh interpreter: no lab, no worker, compile caches of its own,
    empty: nothing another process compiled or autotuned is reused) and read its figures:
    `loops`, `do-bench SHAPE DTYPE` or `workload NAME SHAPE DTYPE SEED PARAMS`; it prints them
    as one JSON line."""
    with tempfile.TemporaryDirectory(prefix="clean-caches-") as caches:
        env = os.environ | {
            "TORCHINDUCTOR_CACHE_DIR": os.path.join(caches, "inductor"),
            "TRITON_CACHE_DIR": os.path.join(caches, "triton"),
        }
        done = subprocess.run(
            [sys.executable, "-m", "benchmarks.clean", *args],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    if done.returncode:
        raise RuntimeError(f"clean process {' '.join(args)} failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def workload(
    name: str,
    shape: str,
    dtype: str,
    seed: str,
    params: str,
    pass_: str = "fwd",
    device: str = "cuda",
    modes: str = "eager,inductor",
) -> dict[str, Any]:
    """ms per call of one catalog workload's pass (fwd, bwd or fwd_bwd: the lab's training
    step, lab/training.py) in each of `modes`: eager, and plain `torch.compile` (no options, no
    lab worker, no inductor setting of the lab's), on the inputs the lab makes (same module,
    shape, seed). Timed by the lab's own clock functions (lab/clocks.py), so only the process
    differs: on CUDA triton.testing.do_bench (L2 flushed between calls, median), the step's
    peak memory as the allocator reads it (_peak_call), then which Triton kernels the compiled call
    launched and their configs (where the lab's figure differs, a different config is the
    first thing to look at); on a CPU torch.utils.benchmark (no flush), with the intra-op
    threads a lab worker would take."""
    import torch

    from runtime_lab.env import choose_torch_threads
    from runtime_lab.lab import clocks, compile_tools, training, vec_isa
    from runtime_lab.workloads import ops

    at = torch.device(device)
    if at.type == "cpu":
        torch.set_num_threads(choose_torch_threads()[0])
        vec_isa.probe(device)  # a machine fact, not the workload's: from the machine's cache
    dims = tuple(int(d) for d in shape.split("x"))
    work = ops.load(name, dims, dtype, at, int(seed), json.loads(params))
    mark = compile_tools.code_modules()
    made = {"eager": work.fn, "inductor": torch.compile(work.fn)}
    fns = {
        mode: training.step(made[mode], work.inputs, pass_, work.module)
        for mode in modes.split(",")
    }
    cuda = at.type == "cuda"
    out: dict[str, Any] = {"torch": torch.__version__, "pass": pass_, "device": device}
    out["gpu"] = torch.cuda.get_device_name() if cuda else None
    out["threads"] = torch.get_num_threads()
    for mode, fn in fns.items():
        for _ in range(3):  # the compile and its first calls stay out of the timing's warm-up
            fn()
        reading = clocks.do_bench_clock(fn, at) or clocks.benchmark_clock(fn, at, 1.0)
        out[f"{mode}_ms"], out["clock"] = reading["median_ms"], reading["clock"]
        gpu = reading.get("gpu")  # the SM clock and power cap while do_bench timed
        out[f"{mode}_gpu"] = dataclasses.asdict(gpu) if gpu else None
        out[f"{mode}_peak_mib"] = _peak_mib(_peak_call(made[mode], work, pass_)) if cuda else None
    out["inductor_kernels"], out["kernels_note"] = [], "Triton kernels need CUDA"
    if cuda and "inductor" in fns:
        from runtime_lab.lab import triton_meta

        kernels, out["kernels_note"] = triton_meta.kernels(fns["inductor"], mark)
        out["inductor_kernels"] = [{"name": k.name, "config": k.config} for k in kernels]
    return out


def _peak_call(forward, work, pass_: str):
    """The call whose peak the row reports, the allocator's own (its step peak): the forward,
    or with a backward one training step from fresh leaves (training.one_step), so the
    gradients, grad_output and activations it makes count, and nothing a timed call left."""
    from runtime_lab.lab import training
    from runtime_lab.passes import has_backward

    call = training.one_step(forward, work.module) if has_backward(pass_) else forward
    return lambda: call(*work.inputs)


def _peak_mib(fn) -> float:
    """The peak allocated during one call above what was allocated before it (the inputs and
    parameters stay out), in MiB."""
    import torch

    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    fn()
    torch.cuda.synchronize()
    return (torch.cuda.max_memory_allocated() - before) / 2**20


def _pointwise(x, y):
    import torch.nn.functional as F

    return F.silu(x + y) * (x - y)


def _graph_of(fn, x, y):
    """fn captured in a CUDA graph after a side-stream warm-up (as torch's docs do it)."""
    import torch

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn(x, y)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn(x, y)
    return graph.replay


def loops() -> dict[str, float]:
    """µs per call of 256² eager, inductor and both CUDA graphs: median of 20 loops of 200
    calls back to back between one event pair, no flush (the lab's loop figure)."""
    import torch

    x = torch.randn(256, 256, device="cuda")
    y = torch.randn_like(x)
    compiled = torch.compile(_pointwise)
    fns = {
        "eager": lambda: _pointwise(x, y),
        "inductor": lambda: compiled(x, y),
        "cuda-graph": _graph_of(_pointwise, x, y),
        "cuda-graph-inductor": _graph_of(compiled, x, y),
    }
    out = {}
    for name, fn in fns.items():
        for _ in range(LOOP_WARMUP):
            fn()
        samples = []
        for _ in range(LOOPS):
            torch.cuda.synchronize()
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(LOOP_CALLS):
                fn()
            end.record()
            torch.cuda.synchronize()
            samples.append(start.elapsed_time(end) * 1e3 / LOOP_CALLS)
        out[name] = sorted(samples)[len(samples) // 2]
    return out


def do_bench(shape: str, dtype: str) -> dict[str, float]:
    """ms per call of eager and torch.compile(fullgraph=True) under triton.testing.do_bench
    (L2 flushed between calls, median): another clock for the lab's steady-state figure."""
    import torch
    from triton.testing import do_bench as bench

    dims = [int(d) for d in shape.split("x")]
    x = torch.randn(dims, device="cuda", dtype=getattr(torch, dtype))
    y = torch.randn_like(x)
    compiled = torch.compile(_pointwise, fullgraph=True)
    fns = {"eager": lambda: _pointwise(x, y), "inductor": lambda: compiled(x, y)}
    out = {}
    with torch.inference_mode():
        for name, fn in fns.items():
            fn()
            out[name] = bench(fn, warmup=25, rep=200, return_mode="median")
    return out


COMMANDS = {"loops": loops, "do-bench": do_bench, "workload": workload}

if __name__ == "__main__":
    what, *rest = sys.argv[1:]
    print(json.dumps(COMMANDS[what](*rest)))
