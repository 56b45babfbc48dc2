"""Fusion's size sweep: time per call of each mode that passed, at each square size asked for,
each compiled point saying whether a static or a dynamic kernel served it."""
# (2-dim workloads only: a square side is one number per named dim)

from __future__ import annotations

import re
from dataclasses import replace

import torch

from runtime_lab.fusion.result import ModeResult, SweepPoint
from runtime_lab.fusion.run.modes import LOOP_CALLS, build, compile_copy, compiles, over_pass
from runtime_lab.lab import compile_tools as ct
from runtime_lab.lab.base import free_bytes
from runtime_lab.lab.timing import MIN_LOOPS, measure, measure_loop
from runtime_lab.results import stats
from runtime_lab.spec import RunSpec
from runtime_lab.workloads import ops
from runtime_lab.workloads.fit import spec_params
from runtime_lab.workloads.registry import get

# How a compiled mode's function meets the sizes: "fresh" compiles a static kernel per size
# (each point comparable to the headline's static kernel); "reuse" calls one function over
# every size, as a loop over shapes in user code does, so Dynamo's automatic dynamic shapes
# turn the second size into a dynamic kernel that then serves every size (the trap).
STRATEGIES = {"fresh": ("fresh",), "reuse": ("reuse",), "both": ("fresh", "reuse")}
SYMBOL = re.compile(r"'[su]\d+'")  # a symbolic size in a compile record's node shapes


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
    # one function per compiled mode for "reuse", made here: the kept wrappers the headline
    # timed must not turn dynamic for later jobs
    reused = {
        m.mode: _Served(compile_copy(m.mode, spec, tag="_sweep"))
        for m in modes
        if compiles(m.mode) and "reuse" in STRATEGIES[spec.option("sweep_compile")]
    }
    points = []
    # static compiles give one graph per size; let a long sweep past the default limit of 8
    with torch._dynamo.config.patch(recompile_limit=len(sides) + 8):
        for i, side in enumerate(sides):
            points += _sweep_size(spec, modes, reused, side, f"{i + 1}/{len(sides)}", ctx)
    return points


class _Served:
    """One compiled function and the kinds of graph it has compiled so far."""

    def __init__(self, fn):
        self.fn = fn
        self.dynamic = False

    def kernel(self, records: list) -> str | None:
        """The kind of graph that served the call these records (its compiles, if any) came
        from: a new record says itself; none means a graph compiled before served it, and a
        dynamic one, being the newest, serves every size."""
        if records:
            shapes = [getattr(r, "graph_node_shapes", None) for r in records]
            if all(s is None for s in shapes):
                return None  # a torch that records no node shapes: unknown, never guessed
            dynamic = any(SYMBOL.search(s or "") for s in shapes)
            self.dynamic |= dynamic
            return "dynamic" if dynamic else "static"
        return "dynamic" if self.dynamic else "static"


def _sweep_size(
    spec: RunSpec, modes: list[ModeResult], reused: dict, side: int, step: str, ctx
) -> list[SweepPoint]:
    device, name = ctx.device, spec.option("workload")
    params = spec_params(spec)
    if ops.footprint(name, (side, side), spec.dtype, params, 1) > free_bytes(device) * 0.8:
        return []  # does not fit: the page says which sizes are missing
    work = ops.load(name, (side, side), spec.dtype, device, spec.seed, params)
    scale = side * side / spec.numel  # the run's bytes model, per element of its shape
    points = []
    for mode in modes:
        if not compiles(mode.mode):
            ctx.progress(f"sweep {side}² ({step}): {mode.mode}", None, None)
            fn = build(mode.mode, spec, work.inputs)
            points.append(_point(spec, mode, side, scale, fn, device, None))
            continue
        for strategy in STRATEGIES[spec.option("sweep_compile")]:
            ctx.progress(f"sweep {side}² ({step}): {mode.mode}, {strategy}", None, None)
            served = reused[mode.mode] if strategy == "reuse" else _fresh(mode.mode, spec, side)
            before = ct.compile_records()
            fn = over_pass(mode.mode, served.fn, work.inputs, spec)
            point = _point(spec, mode, side, scale, fn, device, strategy)
            points.append(replace(point, kernel=served.kernel(ct.new_records(before))))
    return points


def _fresh(mode: str, spec: RunSpec, side: int) -> _Served:
    """A function of its own for this size, compiled static (dynamic=False): no earlier size
    can have made its kernel dynamic."""
    return _Served(compile_copy(mode, spec, dynamic="false", tag=f"_sweep_{side}"))


def _point(spec, mode, side, scale, fn, device, strategy) -> SweepPoint:
    """One size's time per call (its first call, which may compile, is measure's, not timed)."""
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
    return SweepPoint(mode.mode, side, s.median, s.iqr, bytes_moved, loop_us, compiled=strategy)
