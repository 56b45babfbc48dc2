"""Shapes & recompiles: a shape sequence through torch.compile, call by call, per dynamic mode."""

from __future__ import annotations

import math
from contextlib import nullcontext
from dataclasses import replace

import torch
from torch._dynamo.utils import counters

from runtime_lab.lab import compile_tools as ct
from runtime_lab.lab.base import Context
from runtime_lab.lab.compile_trace import capture, evidence
from runtime_lab.lab.timing import CPU_FLUSH_BYTES, CUDA_FLUSH_BYTES
from runtime_lab.recompiles.result import ModeRun, RecompilesResult
from runtime_lab.recompiles.run import calls as rc
from runtime_lab.recompiles.run import cudagraphs as rg
from runtime_lab.recompiles.run.breaks import run_variant
from runtime_lab.recompiles.run.inputs import Work, held_bytes, work_of
from runtime_lab.recompiles.run.steady import eager_times, marks_for, missing_mark, steady_times
from runtime_lab.shapes import DTYPE_BYTES, bucket, entry_text, parse_sequence
from runtime_lab.spec import RunSpec

MODES = {  # mode → (torch.compile dynamic=, how the inputs are marked: a steady.MARKS key)
    "dynamic=False": (False, None),
    "dynamic=None": (None, None),
    "dynamic=True": (True, None),
    "mark_dynamic": (None, "mark_dynamic"),
    "maybe_mark_dynamic": (None, "maybe_mark_dynamic"),
    "mark_unbacked": (None, "mark_unbacked"),
    "bucketed": (False, None),
    # static shapes: each shape is its own graph, so CUDA-graph records map to Dynamo's compiles
    rg.MODE: (False, None),
}
CUDAGRAPH_CPU = (
    "The CUDA-graph what-if (cudagraphs) needs CUDA: mode=reduce-overhead records CUDA graphs "
    "only on a GPU, so it did not run here."
)
Plan = list[tuple[tuple[int, ...], tuple[int, ...], str]]  # (requested, run shape, dtype)


def _calls(spec: RunSpec) -> list[tuple[tuple[int, ...], str]]:
    return [(shape, dtype or spec.dtype) for shape, dtype in parse_sequence(spec.option("shapes"))]


def _dims(spec: RunSpec) -> tuple[int, ...]:
    return tuple(int(d) for d in spec.option("dims").split(","))


def _padded(spec: RunSpec, shape: tuple[int, ...]) -> tuple[int, ...]:
    return bucket(shape, _dims(spec), spec.option("bucket"), spec.option("bucket_multiple"))


def estimate_bytes(spec: RunSpec) -> int:
    calls = _calls(spec)
    if spec.option("bucket") != "off":
        calls += [(_padded(spec, s), d) for s, d in calls]
    flush = (CUDA_FLUSH_BYTES if spec.device != "cpu" else CPU_FLUSH_BYTES) if spec.l2_flush else 0
    graphs = spec.option("cudagraphs") and spec.device != "cpu"
    if spec.option("workload") == "pointwise":  # as before the catalog: x, y, out, intermediates
        # reduce-overhead keeps each distinct shape's graph in its pool: inputs, output, temporaries
        pool = sum(math.prod(s) * DTYPE_BYTES[d] * 4 for s, d in set(_calls(spec))) if graphs else 0
        return max(math.prod(s) * DTYPE_BYTES[d] for s, d in calls) * 7 + flush + pool
    # the largest call's inputs and every tensor eager writes (meta tensors), twice: a compiled
    # call's buffers beside the inputs kept for timing; each distinct shape's graph in the pool
    name, params = spec.option("workload"), spec.option("params")
    held = {(s, d): held_bytes(name, s, d, params) for s, d in calls}
    pool = sum(held[c] for c in set(_calls(spec))) if graphs else 0
    return max(held.values()) * 2 + flush + pool


def run_mode(
    mode: str, plan: Plan, work: Work, spec: RunSpec, ctx: Context, log, stance=None
) -> ModeRun:
    """The sequence from a clean compile state, the stance (if any) set from the second call on:
    the first call compiles under the default stance, since fail_on_recompile would refuse even
    that compile and eager_on_recompile would never compile at all."""
    dynamic, mark = MODES[mode]
    marks = marks_for(mark)
    graphs_whatif = mode == rg.MODE
    # reduce-overhead is Inductor's mode (torch.compile takes a mode or a backend, not both); it
    # runs under the default stance: the what-if is about the graphs, not the stance
    how = {"mode": "reduce-overhead"} if graphs_whatif else {"backend": spec.option("backend")}
    stance = None if graphs_whatif else stance
    fresh = ct.fresh_cache_dirs(spec.device) if spec.option("fresh_caches") else nullcontext()
    with fresh:
        ct.reset()
        own = f"{work.fn.__name__}_{mode.replace('=', '_').replace('-', '_')}"
        fn = ct.own_copy(work.fn, own)
        compiled = torch.compile(fn, dynamic=dynamic, fullgraph=spec.option("fullgraph"), **how)
        records = []
        traced = capture(_trace_name(mode)) if spec.option("compile_trace") else nullcontext()
        watch = rg.Watch() if graphs_whatif else nullcontext()
        # the sequence only: steady-state timing runs without the trace and the watch
        with traced as trace, watch as seen:
            for i, item in enumerate(plan, start=1):
                ctx.progress(
                    f"{mode}: call {i}/{len(plan)} {entry_text(item[1], item[2])}", i, len(plan)
                )
                if seen is not None:
                    seen.before()
                later = stance if i > 1 else None
                record = rc.call(compiled, fn.__code__, i, item, work, spec, ctx, log, marks, later)
                if record.event == "compile" and any(r.event in rc.COMPILED for r in records):
                    record = replace(record, event="recompile")
                records.append(seen.after(record) if seen is not None else record)
        pool, pool_note = rg.pool(ctx.device) if graphs_whatif else (None, None)
        unseen = [*(seen.notes if seen is not None else []), pool_note]
        base = ModeRun(
            mode=mode,
            dynamic=str(dynamic),
            detail=_detail(mode, spec, work),
            unique_graphs=counters["stats"].get("unique_graphs", 0),
            graph_breaks=sum(counters["graph_break"].values()),
            compile_evidence=evidence(trace) if trace is not None else None,
            pool_bytes=pool,
            cudagraph_note="; ".join(n for n in unseen if n) or None,
        )
        final_id, guards = ct.final_guards(fn.__code__)
        before = ct.compile_records()
        with ct.stance(stance):  # timed as the calls after warm-up ran: eager where they did
            times = steady_times(compiled, work, records, spec, ctx, marks, mode)
        timing_compiles = len(ct.new_records(before))
    base = replace(
        base, final_compile_id=final_id, final_guards=guards, timing_compiles=timing_compiles
    )
    return rc.summarise(base, records, times, spec.option("recompile_limit"), stance)


def _trace_name(mode: str) -> str:
    return "recompiles-" + "".join(c if c.isalnum() else "-" for c in mode)


def _with_eager(mode: ModeRun, eager: dict) -> ModeRun:
    """The eager reference time of each call's own (unpadded) input."""
    calls = tuple(replace(c, eager_ms=eager.get((c.requested_shape, c.dtype))) for c in mode.calls)
    return replace(mode, calls=calls)


def _detail(mode: str, spec: RunSpec, work: Work) -> str:
    text = _mode_detail(mode, spec, work)
    if work.applied():  # the option marks every mode's inputs: say so where each mode is named
        text += f"; mark_dynamic {work.applied()} on every call (the option)"
    return text


def _mode_detail(mode: str, spec: RunSpec, work: Work) -> str:
    names = ", ".join(work.dims[d] for d in _dims(spec))
    on = f"{names} ({work.marked()})"
    if mode == "mark_dynamic":
        return f"torch._dynamo.mark_dynamic on {on}, dynamic=None"
    if mode == "maybe_mark_dynamic":
        return (
            f"torch._dynamo.maybe_mark_dynamic on {on}, dynamic=None: a hint, "
            "Dynamo may still specialize them"
        )
    if mode == "mark_unbacked":
        return (
            f"torch._dynamo.decorators.mark_unbacked on {on}, dynamic=None: "
            "unbacked sizes, no 0/1 specialization and no guards on them"
        )
    if mode == rg.MODE:
        return (
            "mode=reduce-overhead (Inductor with cudagraph trees), dynamic=False so each shape is "
            "its own graph, default stance: per call warm-up, recorded, replayed or skipped"
        )
    if mode == "bucketed":
        how = (
            "powers of two"
            if spec.option("bucket") == "pow2"
            else f"multiples of {spec.option('bucket_multiple')}"
        )
        return f"{names} padded up to {how}, then dynamic=False"
    return {
        "dynamic=False": "static shapes: one graph per distinct shape",
        "dynamic=None": "automatic dynamic: static first, dynamic after a size changes",
        "dynamic=True": "dynamic shapes from the first call",
    }[mode]


def run(spec: RunSpec, ctx: Context) -> RecompilesResult:
    calls = _calls(spec)
    plans: list[tuple[str, Plan]] = [
        (mode, [(s, s, d) for s, d in calls]) for mode in spec.option("modes").split(",")
    ]
    if spec.option("bucket") != "off":
        plans.append(("bucketed", [(s, _padded(spec, s), d) for s, d in calls]))
    if spec.option("cudagraphs") and ctx.device.type == "cuda":
        plans.append((rg.MODE, [(s, s, d) for s, d in calls]))
    notes = [CUDAGRAPH_CPU] if spec.option("cudagraphs") and ctx.device.type != "cuda" else []
    stance = spec.option("stance")
    missing = ct.stance_missing(stance) if stance != "default" else None
    if missing:
        notes.append(f"{missing}: the run used the default stance.")
        stance = "default"
    work = work_of(spec, _dims(spec), calls[0][0])  # which input axes carry the marked dims
    ctx.progress("warming up the compiler", None, None)
    ct.warm_compiler(spec.option("backend"), ctx.device)
    if any(mode == rg.MODE for mode, _ in plans) and spec.option("backend") != "inductor":
        ct.warm_compiler("inductor", ctx.device)  # reduce-overhead is Inductor's, whatever backend
    runs = []
    limit = torch._dynamo.config.patch(recompile_limit=spec.option("recompile_limit"))
    with limit, ct.dynamo_log() as log:
        for mode, plan in plans:
            lacks = missing_mark(MODES[mode][1]) if MODES[mode][1] else None
            if lacks:  # this torch has no such mark: the mode says so, the others run
                runs.append(ModeRun(mode=mode, dynamic="None", detail="", error=lacks))
                continue
            try:
                runs.append(run_mode(mode, plan, work, spec, ctx, log, stance))
            except Exception as exc:  # one mode failing must not hide the others
                runs.append(ModeRun(mode=mode, dynamic="", detail="", error=rc.short(exc)))
        if any(mode == rg.MODE for mode, _ in plans):
            rg.release()  # the trees and their pool, whether the what-if ended or failed
        graph_break = None
        if spec.option("graph_break") != "off":
            ctx.progress(f"graph-break variant: {spec.option('graph_break')}", None, None)
            shape, dtype = calls[0]
            graph_break = run_variant(spec.option("graph_break"), work, shape, dtype, spec, ctx)
    ct.reset()
    eager = eager_times(work, calls, spec, ctx)  # last: the process is warm, as in the modes
    runs = [_with_eager(r, eager) for r in runs]
    return RecompilesResult(
        device=str(ctx.device),
        backend=spec.option("backend"),
        fullgraph=spec.option("fullgraph"),
        dtype=spec.dtype,
        sequence=tuple(entry_text(s, d) for s, d in parse_sequence(spec.option("shapes"))),
        dims=_dims(spec),
        recompile_limit=spec.option("recompile_limit"),
        bucket=spec.option("bucket"),
        bucket_multiple=spec.option("bucket_multiple"),
        fresh_caches=spec.option("fresh_caches"),
        modes=tuple(runs),
        graph_break=graph_break,
        notes=tuple(notes),
        stance=stance,
        cudagraphs=spec.option("cudagraphs"),
        workload=work.name,
        dim_names=work.dims,
        params=spec.option("params"),
        marked=work.marked(),
        mark_dynamic=work.applied(),
        mark_dynamic_dims=work.forced_dims,
        dim_axes=work.dim_axes,
        training_pass=work.step,
    )
