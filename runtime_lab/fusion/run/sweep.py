"""Fusion's size sweep: time per call of each mode that passed, at each square size asked for."""
# (2-dim workloads only: a square side is one number per named dim)

from __future__ import annotations

import torch

from runtime_lab.fusion.result import ModeResult, SweepPoint
from runtime_lab.fusion.run.modes import LOOP_CALLS, build
from runtime_lab.lab.base import free_bytes
from runtime_lab.lab.timing import MIN_LOOPS, measure, measure_loop
from runtime_lab.results import stats
from runtime_lab.spec import RunSpec
from runtime_lab.workloads import ops
from runtime_lab.workloads.fit import spec_params
from runtime_lab.workloads.registry import get


def sweep(spec: RunSpec, results: list[ModeResult], ctx, notes: list) -> list[SweepPoint]:
    """Time per call for each mode that passed, at each square size (fewer calls per point)."""
    work = get(spec.option("workload"))
    if len(work.dims) != 2:
        notes.append(
            f"sweep not run: square sizes need a 2-dim workload; {work.name} has "
            f"{len(work.dims)} dims ({work.dims_text})"
        )
        return []
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
    device, name = ctx.device, spec.option("workload")
    params = spec_params(spec)
    if ops.footprint(name, (side, side), spec.dtype, params, 1) > free_bytes(device) * 0.8:
        return []  # does not fit: the page says which sizes are missing
    work = ops.load(name, (side, side), spec.dtype, device, spec.seed, params)
    scale = side * side / spec.numel  # the run's bytes model, per element of its shape
    points = []
    for mode in modes:
        ctx.progress(f"sweep {side}² ({step}): {mode.mode}", None, None)
        fn = build(mode.mode, spec, work.inputs)
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
        bytes_moved = round(mode.bytes_moved * scale)
        points.append(SweepPoint(mode.mode, side, s.median, s.iqr, bytes_moved, loop_us))
    return points
