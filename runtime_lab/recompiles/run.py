"""Shapes & recompiles: a shape sequence through torch.compile, call by call, per dynamic mode."""

from __future__ import annotations

import math
import time
from contextlib import nullcontext
from dataclasses import replace

import torch
from torch._dynamo.utils import counters

from runtime_lab.lab import compile_tools as ct
from runtime_lab.lab.base import Context
from runtime_lab.lab.timing import CPU_FLUSH_BYTES, CUDA_FLUSH_BYTES
from runtime_lab.lab.workload import pointwise
from runtime_lab.recompiles.breaks import run_variant
from runtime_lab.recompiles.result import CallRecord, ModeRun, RecompilesResult
from runtime_lab.recompiles.steady import eager_times, inputs, steady_times
from runtime_lab.shapes import DTYPE_BYTES, bucket, entry_text, parse_sequence
from runtime_lab.spec import RunSpec

MODES = {  # mode → (torch.compile dynamic=, marks dims dynamic)
    "dynamic=False": (False, False),
    "dynamic=None": (None, False),
    "dynamic=True": (True, False),
    "mark_dynamic": (None, True),
    "bucketed": (False, False),
}
COMPILED = ("compile", "recompile")
TRANSFERS = 3  # x and y read, out written: what padding adds per padded element
MAX_ERROR = 1500
Plan = list[tuple[tuple[int, ...], tuple[int, ...], str]]  # (requested, run shape, dtype)


def _calls(spec: RunSpec) -> list[tuple[tuple[int, ...], str]]:
    return [(shape, dtype or spec.dtype) for shape, dtype in parse_sequence(spec.option("shapes"))]


def _dims(spec: RunSpec) -> tuple[int, ...]:
    return tuple(int(d) for d in spec.option("dims").split(","))


def _padded(spec: RunSpec, shape: tuple[int, ...]) -> tuple[int, ...]:
    return bucket(shape, _dims(spec), spec.option("bucket"), spec.option("bucket_multiple"))


def estimate_bytes(spec: RunSpec) -> int:
    # the largest call: inputs, output and eager's intermediates, padded when bucketing
    sizes = [math.prod(s) * DTYPE_BYTES[d] for s, d in _calls(spec)]
    if spec.option("bucket") != "off":
        sizes += [math.prod(_padded(spec, s)) * DTYPE_BYTES[d] for s, d in _calls(spec)]
    flush = (CUDA_FLUSH_BYTES if spec.device != "cpu" else CPU_FLUSH_BYTES) if spec.l2_flush else 0
    return max(sizes) * 7 + flush


def _short(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:MAX_ERROR]


def _is_limit(text: str | None) -> bool:
    text = (text or "").lower().replace("_", " ")
    return any(k in text for k in ("recompile limit", "recompilelimit", "cache size limit"))


def _fx_cache() -> tuple[int, int]:
    return (
        counters["inductor"].get("fxgraph_cache_hit", 0),
        counters["inductor"].get("fxgraph_cache_miss", 0),
    )


def _call(compiled, code, index: int, item, spec: RunSpec, ctx: Context, log, marks):
    """One call of the sequence: what Dynamo did, how long it took, which frame ran it."""
    requested, shape, dtype = item
    x, y = inputs(shape, dtype, spec.seed + index, ctx.device, marks)
    before, log_mark, fx_before = ct.compile_records(), len(log), _fx_cache()
    error = None
    start = time.perf_counter()
    try:
        compiled(x, y)
        if ctx.device.type == "cuda":
            torch.cuda.synchronize(ctx.device)
    except Exception as exc:  # e.g. FailOnRecompileLimitHit: a state of the run, shown per call
        error = _short(exc)
    call_s = time.perf_counter() - start
    new = ct.new_records(before)
    done = [m for m in new if not getattr(m, "fail_type", None)]
    failed = [m for m in new if getattr(m, "fail_type", None)]
    times = [
        m.dynamo_cumulative_compile_time_us for m in new if m.dynamo_cumulative_compile_time_us
    ]
    reasons = [m.recompile_reason for m in new if getattr(m, "recompile_reason", None)]
    fx_hits, fx_misses = (a - b for a, b in zip(_fx_cache(), fx_before, strict=True))
    fail_text = "; ".join(str(getattr(m, "fail_reason", "") or "") for m in failed)
    served = None
    if error:
        event = "failed"
    elif done:
        event, served = "compile", str(done[-1].compile_id)
    else:
        served = ct.served_by(code, {"x": x, "y": y})
        event = "cache hit" if served else "eager fallback"
    return CallRecord(
        index=index,
        shape=shape,
        requested_shape=requested,
        dtype=dtype,
        event=event,
        call_s=call_s,
        compile_s=sum(times) / 1e6 if times else None,
        compile_id=served,
        reason=reasons[0] if reasons else None,
        guard_failures=ct.guard_failures(log[log_mark:]),
        guard_count=done[-1].guard_count if done else None,
        fx_cache="hit" if fx_hits else ("miss" if fx_misses else None),
        padding_bytes=(math.prod(shape) - math.prod(requested)) * DTYPE_BYTES[dtype] * TRANSFERS,
        error=error or (fail_text[:MAX_ERROR] if failed else None),
    )


def _limit_state(calls: list[CallRecord], limit: int) -> tuple[bool, str | None, str | None]:
    hit = [c for c in calls if _is_limit(c.error)]
    if not hit:
        return False, None, None
    first = hit[0]
    raised = [c for c in hit if c.event == "failed"]
    if raised:
        kind = raised[0].error.split(":", 1)[0]
        state = (
            f"hit recompile_limit ({limit}) at call {first.index}: with fullgraph=True that is an "
            f"error, so {len(raised)} call(s) raised {kind} instead of running"
        )
    else:
        eager = [c for c in calls[first.index - 1 :] if c.event == "eager fallback"]
        state = (
            f"hit recompile_limit ({limit}) at call {first.index}: Dynamo stopped compiling "
            f"new shapes, {len(eager)} call(s) ran eager (compiled frames still serve theirs)"
        )
    return True, state, first.error


def run_mode(mode: str, plan: Plan, spec: RunSpec, ctx: Context, log) -> ModeRun:
    dynamic, marks_dims = MODES[mode]
    marks = _dims(spec) if marks_dims else None
    fresh = ct.fresh_cache_dirs() if spec.option("fresh_caches") else nullcontext()
    with fresh:
        ct.reset()
        fn = ct.own_copy(pointwise, f"pointwise_{mode.replace('=', '_')}")
        compiled = torch.compile(
            fn, backend=spec.option("backend"), dynamic=dynamic, fullgraph=spec.option("fullgraph")
        )
        records = []
        for i, item in enumerate(plan, start=1):
            ctx.progress(
                f"{mode}: call {i}/{len(plan)} {entry_text(item[1], item[2])}", i, len(plan)
            )
            record = _call(compiled, fn.__code__, i, item, spec, ctx, log, marks)
            if record.event == "compile" and any(r.event in COMPILED for r in records):
                record = replace(record, event="recompile")
            records.append(record)
        graphs = counters["stats"].get("unique_graphs", 0)
        breaks = sum(counters["graph_break"].values())
        final_id, guards = ct.final_guards(fn.__code__)
        before = ct.compile_records()
        times = steady_times(compiled, records, spec, ctx, marks, mode)
        timing_compiles = len(ct.new_records(before))
    limit = spec.option("recompile_limit")
    hit, state, limit_error = _limit_state(records, limit)
    calls = []
    for r in records:
        steady = times.get((r.shape, r.dtype))
        calls.append(
            replace(
                r,
                steady_ms=steady[0] if steady else None,
                steady_iqr_ms=steady[1] if steady else None,
            )
        )
    compiled_calls = [c for c in calls if c.event in COMPILED]
    return ModeRun(
        mode=mode,
        dynamic=str(dynamic),
        detail=_detail(mode, spec),
        calls=tuple(calls),
        unique_graphs=graphs,
        compiles=len(compiled_calls),
        recompiles=sum(c.event == "recompile" for c in calls),
        cache_hits=sum(c.event == "cache hit" for c in calls),
        eager_fallbacks=sum(c.event == "eager fallback" for c in calls),
        failed_calls=sum(c.event == "failed" for c in calls),
        compile_s=sum(c.compile_s or 0.0 for c in calls),
        graph_breaks=breaks,
        recompile_limit=limit,
        limit_hit=hit,
        limit_state=state,
        limit_error=limit_error,
        final_compile_id=final_id,
        final_guards=guards,
        timing_compiles=timing_compiles,
    )


def _with_eager(mode: ModeRun, eager: dict) -> ModeRun:
    """The eager reference time of each call's own (unpadded) input."""
    calls = tuple(replace(c, eager_ms=eager.get((c.requested_shape, c.dtype))) for c in mode.calls)
    return replace(mode, calls=calls)


def _detail(mode: str, spec: RunSpec) -> str:
    dims = spec.option("dims")
    if mode == "mark_dynamic":
        return f"torch._dynamo.mark_dynamic on dims {dims} of x and y, dynamic=None"
    if mode == "bucketed":
        how = (
            "powers of two"
            if spec.option("bucket") == "pow2"
            else f"multiples of {spec.option('bucket_multiple')}"
        )
        return f"dims {dims} padded up to {how}, then dynamic=False"
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
    ctx.progress("warming up the compiler", None, None)
    ct.warm_compiler(spec.option("backend"), ctx.device)
    runs = []
    limit = torch._dynamo.config.patch(recompile_limit=spec.option("recompile_limit"))
    with limit, ct.dynamo_log() as log:
        for mode, plan in plans:
            try:
                runs.append(run_mode(mode, plan, spec, ctx, log))
            except Exception as exc:  # one mode failing must not hide the others
                runs.append(ModeRun(mode=mode, dynamic="", detail="", error=_short(exc)))
        graph_break = None
        if spec.option("graph_break") != "off":
            ctx.progress(f"graph-break variant: {spec.option('graph_break')}", None, None)
            shape, dtype = calls[0]
            graph_break = run_variant(spec.option("graph_break"), shape, dtype, spec, ctx)
    ct.reset()
    eager = eager_times(calls, spec, ctx)  # last: by now the process is warm, as in the modes
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
    )
