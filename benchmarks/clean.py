"""Clean reference processes, the workload alone without the lab: `python -m benchmarks.clean ...`."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from benchmarks.serving import REPO

LOOP_CALLS, LOOPS, LOOP_WARMUP = 200, 20, 50  # as the lab's loop figure: 200 calls, no flush
TIMEOUT_S = 600


def reference(*args: str) -> dict[str, Any]:
    """Run one clean process (a fresh interpreter: no lab, no worker) and read its figures:
    `loops`, or `do-bench SHAPE DTYPE`; it prints them as one JSON line."""
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.clean", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        stdin=subprocess.DEVNULL,
    )
    if done.returncode:
        raise RuntimeError(f"clean process {' '.join(args)} failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


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


if __name__ == "__main__":
    what, *rest = sys.argv[1:]
    print(json.dumps(loops() if what == "loops" else do_bench(*rest)))
