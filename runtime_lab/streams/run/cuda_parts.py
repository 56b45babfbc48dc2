"""The CUDA-only parts of the streams run: variants × trials, overlap, host blocking, one trace."""

from __future__ import annotations

import dataclasses
import itertools
import uuid
from typing import Any

import torch
from torch.profiler import ProfilerActivity, profile, record_function

from runtime_lab import config, envvars
from runtime_lab.lab.base import Context, Refused, torch_dtype
from runtime_lab.lab.profiling import export_trace, step_range, warm_profiler
from runtime_lab.spec import RunSpec
from runtime_lab.streams.info import SEED_OP
from runtime_lab.streams.result import HIDDEN_DEPENDENCY_LABEL, OverlapCase
from runtime_lab.streams.run import trace as streamtrace
from runtime_lab.streams.run.overlap import (
    Chain,
    OverlapWork,
    event_timing,
    host_blocking,
    square_chains,
    time_overlap,
)
from runtime_lab.streams.run.side_op import SideOp
from runtime_lab.streams.run.variants import (
    VARIANT_FUNCTIONS,
    Workload,
    cycles_per_ms,
    run_trials,
)
from runtime_lab.workloads import ops
from runtime_lab.workloads.fit import spec_params
from runtime_lab.workloads.registry import get

ACTIVITIES = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
BIG_SIZE_RANGE = (1024, 8192)
OVERLAP_REPEATS = 20
HIDDEN_ARRANGEMENT = "default_op_between"  # the OverlapWork method of the hidden-dependency case
# a run that would spin longer than this share of the job timeout is refused up front
SPIN_BUDGET_FRACTION = 0.5


def big_size(spec: RunSpec) -> int:
    """The GPU-filling overlap case: a square matmul of the spec's largest matrix dim."""
    low, high = BIG_SIZE_RANGE
    return min(max(max(spec.shape[-2:]), low), high)


def check_budget(spec: RunSpec) -> None:
    variants = len(spec.option("variant").split(","))
    spin_s = variants * spec.option("trials") * 2 * spec.option("delay_us") / 1e6
    budget = SPIN_BUDGET_FRACTION * envvars.value(envvars.JOB_TIMEOUT_ENV)
    if spin_s > budget:
        raise Refused(
            f"delay_us × trials × variants would spin the GPU for {spin_s:.0f} s, more than "
            f"{budget:.0f} s (half the job timeout); lower trials, delay_us or the variants"
        )


def run_cuda_parts(spec: RunSpec, ctx: Context, op: SideOp, side, generator) -> dict[str, Any]:
    """Everything that needs streams; returns StreamsResult fields."""
    with torch.cuda.device(ctx.device):  # bare synchronize() and _sleep act on this device
        return _run(spec, ctx, op, side, generator)


def _run(spec: RunSpec, ctx: Context, op: SideOp, side, generator) -> dict[str, Any]:
    device = ctx.device
    cpm = cycles_per_ms(device)
    delay_ms = spec.option("delay_us") / 1e3
    default = torch.cuda.current_stream(device)
    inputs = tuple(t.clone() for t in op.inputs)  # the trials rewrite theirs
    delay = int(cpm * delay_ms)
    work = Workload(inputs, side, default, delay, generator, op.fn, op.fresh, op.names)
    names = spec.option("variant").split(",")
    trials = spec.option("trials")
    variants = [run_trials(n, work, trials, op.tolerance, ctx.progress) for n in names]
    cases = _overlap_cases(spec, ctx, cpm, generator)
    ctx.progress("host vs device: blocking calls", None, None)
    blocking = host_blocking(work.delay_cycles, delay_ms, min(spec.option("trials"), 20), device)
    ctx.progress("event timing", None, None)
    event_ms = event_timing(op.fn, op.inputs, side, spec.repeat)
    ctx.progress("profiling one trial of each part", None, None)
    trace = config.data_dir() / "traces" / f"{uuid.uuid4().hex[:12]}-streams.json"
    _profile(work, names, cases, trace)
    events = streamtrace.load(trace)
    variants = [
        dataclasses.replace(v, timeline=_timeline(events, f"variant:{v.variant}")) for v in variants
    ]
    return {
        "variants": tuple(variants),
        "delay_ms": delay_ms,
        "sleep_cycles_per_ms": cpm,
        "overlap": tuple(_with_timelines(case, events) for case, _ in cases),
        "host_blocking": blocking,
        "event_ms": event_ms,
        "blocking_timeline": _timeline(events, "host-blocking"),
        "trace_file": str(trace),
        "sync_events": sync_config()[1],
    }


def _overlap_cases(spec, ctx, cpm, generator) -> list[tuple[OverlapCase, OverlapWork]]:
    if not spec.option("overlap"):
        return []
    kernels = spec.option("overlap_kernels")
    gate_cycles = int(cpm * (2.0 + 0.1 * kernels))  # longer than issuing both chains
    out = []
    for label, size, shape in overlap_sizes(spec):
        what = "x".join(map(str, shape)) if shape else f"{size}²"
        ctx.progress(f"overlap: {label} ({what})", None, None)
        chains = _chains(spec, (size, shape), label == "small kernels", ctx.device, generator)
        work = OverlapWork(chains, kernels, ctx.device, gate_cycles)
        serial, concurrent = time_overlap(work, OVERLAP_REPEATS)
        case = OverlapCase(label, size, kernels, serial, concurrent, None, None, shape=shape)
        out.append((case, work))
        if label == "small kernels":  # where overlap pays, so where losing it shows
            ctx.progress(f"overlap: {HIDDEN_DEPENDENCY_LABEL} ({what})", None, None)
            serial, hidden = time_overlap(work, OVERLAP_REPEATS, HIDDEN_ARRANGEMENT)
            case = dataclasses.replace(
                case, label=HIDDEN_DEPENDENCY_LABEL, concurrent_ms=hidden, hidden_dependency=True
            )
            out.append((case, work))
    return out


def overlap_sizes(spec: RunSpec) -> tuple[tuple[str, int, tuple[int, ...]], ...]:
    """(label, square size, workload shape) per case: the seed's square matmuls of overlap_small
    and big_size (shape ()); a workload at its CPU-sized shape and at the spec's (size 0)."""
    name = spec.option("workload")
    if name == SEED_OP:
        return (
            ("small kernels", spec.option("overlap_small"), ()),
            ("GPU-filling", big_size(spec), ()),
        )
    return (("small kernels", 0, get(name).cpu_shape), ("GPU-filling", 0, tuple(spec.shape)))


def _chains(spec: RunSpec, at: tuple, small: bool, device, generator) -> tuple[Chain, Chain]:
    """Two independent chains of the op at (square size, workload shape): the seed's square
    matmuls, or the workload's, each chain on inputs of its own seed."""
    size, shape = at
    if not shape:
        return square_chains(size, device, torch_dtype(spec.dtype), generator)
    name, info = spec.option("workload"), get(spec.option("workload"))
    params = dict(info.cpu_params) if small else spec_params(spec)
    loaded = [ops.load(name, shape, spec.dtype, device, spec.seed + i, params) for i in (1, 2)]
    return Chain(loaded[0].inputs, loaded[0].fn), Chain(loaded[1].inputs, loaded[1].fn)


def _arrangements(case: OverlapCase) -> tuple[tuple[str, str], ...]:
    """(trace section, OverlapWork method) to profile per case; the hidden-dependency case
    shares its one-stream run with the small-kernels case, so only its two streams are traced."""
    if case.hidden_dependency:
        return (("concurrent", HIDDEN_ARRANGEMENT),)
    return (("serial", "serial"), ("concurrent", "concurrent"))


def sync_config() -> tuple[dict[str, Any], str]:
    """The profiler's CUDA sync records (off by default: a default trace of the side-stream matmul
    has none), where this torch build's experimental config has the switch; and a word on it."""
    try:
        config = torch._C._profiler._ExperimentalConfig(enable_cuda_sync_events=True)
    except (AttributeError, TypeError) as exc:
        return {}, f"this torch build's profiler has no enable_cuda_sync_events ({exc})"[:300]
    return {"experimental_config": config}, "on"


def _profile(work: Workload, names, cases, trace) -> None:
    """One trial of each variant, each overlap arrangement and a host-blocking round, tagged
    with lab:section ranges, in one profiler session (warmed first: its first session is slow).
    Each section is also a ProfilerStep, so trace tools break the trace down per section."""
    warm_profiler(ACTIVITIES, lambda: torch.cuda.synchronize())
    steps = itertools.count()
    with profile(activities=ACTIVITIES, **sync_config()[0]) as prof:
        for name in names:
            torch.cuda.synchronize()
            with step_range(next(steps)), record_function(f"lab:section:variant:{name}"):
                VARIANT_FUNCTIONS[name](work)
                torch.cuda.synchronize()
        for case, overlap in cases:
            for section, method in _arrangements(case):
                torch.cuda.synchronize()
                label = f"lab:section:overlap:{case.label}:{section}"
                with step_range(next(steps)), record_function(label):
                    overlap.gate()
                    getattr(overlap, method)()
                    torch.cuda.synchronize()
        with step_range(next(steps)), record_function("lab:section:host-blocking"):
            host_blocking(work.delay_cycles, 0.0, 1, work.x.device)
    export_trace(prof, trace)


def _timeline(events, section: str):
    """A section's timeline, or None when the profiler dropped its range (then: no chart)."""
    try:
        return streamtrace.timeline(events, section)
    except KeyError:
        return None


def _with_timelines(case: OverlapCase, events) -> OverlapCase:
    concurrent = _timeline(events, f"overlap:{case.label}:concurrent")
    serial = _timeline(events, f"overlap:{case.label}:serial")
    pct = streamtrace.overlap_pct(concurrent.kernels, "a", "b") if concurrent else None
    return dataclasses.replace(
        case,
        overlap_pct=pct,
        timeline=concurrent,
        serial_timeline=serial,
    )
