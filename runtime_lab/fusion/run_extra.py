"""Fusion extras: cold compile in a fresh process, the size sweep (the ceiling: lab/ceiling.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

import torch

from runtime_lab.fusion.modes import INDUCTOR_MODES, LOOP_CALLS, build
from runtime_lab.fusion.result import CompileLatency, ModeResult, SweepPoint
from runtime_lab.lab.base import free_bytes, torch_dtype
from runtime_lab.lab.timing import MIN_LOOPS, measure, measure_loop
from runtime_lab.results import stats
from runtime_lab.spec import RunSpec

FRESH_SCRIPT = """
import json, sys, time
t0 = time.perf_counter()
import torch, torch.nn.functional as F
t1 = time.perf_counter()
dev = torch.device(sys.argv[1]); shape = tuple(int(d) for d in sys.argv[2].split("x"))
x = torch.randn(shape, device=dev, dtype=getattr(torch, sys.argv[3])); y = torch.randn_like(x)
if dev.type == "cuda": torch.cuda.synchronize(dev)
t2 = time.perf_counter()
mode = None if sys.argv[4] == "default" else sys.argv[4]
f = torch.compile(lambda a, b: F.silu(a + b) * (a - b), mode=mode)
f(x, y)
if dev.type == "cuda": torch.cuda.synchronize(dev)
t3 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "init_s": t2 - t1, "compile_s": t3 - t2}))
"""


def fresh_process_latency(mode: str, spec: RunSpec, device: torch.device) -> CompileLatency:
    """Import + device init + cold compile + first call, in a new interpreter with empty caches."""
    with tempfile.TemporaryDirectory(prefix="runtime-lab-fresh-") as root:
        env = {
            **os.environ,
            "TORCHINDUCTOR_CACHE_DIR": f"{root}/inductor",
            "TRITON_CACHE_DIR": f"{root}/triton",
        }
        args = [str(device), spec.shape_text, spec.dtype, INDUCTOR_MODES[mode] or "default"]
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", FRESH_SCRIPT, *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        total = time.perf_counter() - start
    if done.returncode != 0:
        tail = (done.stderr or "").strip().splitlines()[-1:] or ["no output"]
        return CompileLatency("fresh-process", total, detail=f"failed: {tail[0][:300]}")
    phases = json.loads(done.stdout.strip().splitlines()[-1])
    detail = (
        f"process start to exit {total:.1f} s: import {phases['import_s']:.1f} s, "
        f"device init {phases['init_s']:.1f} s, compile + first call {phases['compile_s']:.1f} s"
    )
    return CompileLatency("fresh-process", total, detail=detail)


def sweep(spec: RunSpec, results: list[ModeResult], ctx) -> list[SweepPoint]:
    """Time per call for each mode that passed, at each square size (fewer calls per point)."""
    modes = [r for r in results if r.ran]
    sides = [int(s) for s in spec.option("sweep").split(",")]
    points = []
    # dynamic=false compiles one graph per size; let a long sweep past the default limit of 8
    with torch._dynamo.config.patch(recompile_limit=len(sides) + 8):
        for i, side in enumerate(sides):
            points += _sweep_size(spec, modes, side, f"{i + 1}/{len(sides)}", ctx)
    return points


def _sweep_size(
    spec: RunSpec, modes: list[ModeResult], side: int, step: str, ctx
) -> list[SweepPoint]:
    device, dtype = ctx.device, torch_dtype(spec.dtype)
    itemsize = torch.empty((), dtype=dtype).element_size()
    if side * side * itemsize * 8 > free_bytes(device) * 0.8:
        return []  # does not fit: the page says which sizes are missing
    x = torch.randn(side, side, device=device, dtype=dtype)
    y = torch.randn_like(x)
    points = []
    for mode in modes:
        ctx.progress(f"sweep {side}² ({step}): {mode.mode}", None, None)
        fn = build(mode.mode, spec, x, y)
        t = measure(
            fn,
            device=device,
            label=mode.mode,
            warmup=min(spec.warmup, 5),
            repeat=min(spec.repeat, 30),
            l2_flush=spec.l2_flush,
        )
        s = stats(t.primary_ms)
        loop_us = measure_loop(
            fn, device, LOOP_CALLS, loops=MIN_LOOPS, typical_s=s.median / 1e3
        ).us_per_call
        bytes_moved = mode.transfers_per_element * x.numel() * itemsize
        points.append(SweepPoint(mode.mode, side, s.median, s.iqr, bytes_moved, loop_us))
    return points
