"""Fusion & compile: a workload from the catalog, eager vs torch.compile modes, checked then timed."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import replace

import torch

from runtime_lab import config, passes
from runtime_lab.fusion.result import (
    OWN_FIRST_CALL,
    CompileLatency,
    EagerOp,
    FusionResult,
    ModeResult,
    SavedForBackward,
)
from runtime_lab.fusion.run import autotune, correctness, grads
from runtime_lab.fusion.run.cache_runs import warm_from
from runtime_lab.fusion.run.clocks import PROFILED_CALLS, cross_check, profile_mode
from runtime_lab.fusion.run.evidence import add_evidence
from runtime_lab.fusion.run.latency import SUBPROCESS_NOTE, compile_latencies, latency_mode
from runtime_lab.fusion.run.modes import GRAPH_MODES, INDUCTOR_MODES, build, compiles
from runtime_lab.fusion.run.sweep import sweep
from runtime_lab.lab import compile_tools as ct
from runtime_lab.lab import device_limits, saved, triton_meta
from runtime_lab.lab.base import Context
from runtime_lab.lab.cache_env import cache_dirs
from runtime_lab.lab.ceiling import ceilings
from runtime_lab.lab.compute_ceiling import matmul_tflops, peak_tflops
from runtime_lab.lab.timing import CPU_FLUSH_BYTES, CUDA_FLUSH_BYTES, measure
from runtime_lab.spec import RunSpec
from runtime_lab.workloads import ops
from runtime_lab.workloads.fit import spec_params
from runtime_lab.workloads.registry import get

__all__ = ["SUBPROCESS_NOTE", "estimate_bytes", "run"]
FUSED = (*INDUCTOR_MODES, "cuda-graph-inductor")  # run Inductor's code: the ideal bytes model


def estimate_bytes(spec: RunSpec) -> int:
    # the workload's inputs, what eager writes, their float64 reference, one output per mode
    modes = len(spec.option("modes").split(","))
    flush = (CUDA_FLUSH_BYTES if spec.device != "cpu" else CPU_FLUSH_BYTES) if spec.l2_flush else 0
    name = spec.option("workload")
    return ops.footprint(name, spec.shape, spec.dtype, spec_params(spec), modes + 1) + flush


def run_mode(mode: str, spec: RunSpec, made: dict, ctx: Context) -> tuple[ModeResult, object]:
    """Build, check, then time a mode on the lab's clock; no profiler here (its loop and other
    clocks come once every mode has its headline figure: run_clocks.cross_check). Returns
    the result and the callable, which the job profiles once every timed phase is done. Its
    compile is the first call's, with the caches _first_caches gives it: the cold / warm-cache /
    warm-process latencies come after every mode's steady state (compile_latencies), so a
    headline needs none."""
    inputs, device = made["work"].inputs, ctx.device
    moved = made["ideal_bytes"] if mode in FUSED else made["eager_bytes"]
    base = {
        "mode": mode,
        # bytes per element of the first input: 11 and 3 for the seed's pointwise function
        "transfers_per_element": round(moved / made["unit_bytes"]),
        "bytes_moved": moved,
    }
    if mode in GRAPH_MODES and device.type != "cuda":
        return ModeResult(ran=False, error="CUDA graphs need a GPU", **base), None
    ct.clear_records()
    code_mark = ct.code_modules()
    records = []
    ctx.progress(f"{mode}: first call", None, None)
    fn = build(mode, spec, inputs)
    with _first_caches(mode, made) as watch, autotune.capture(mode, device) as tuning:
        first = ct.timed_call(fn, device)  # max-autotune on CUDA: its choices are captured
    if mode != "eager":
        records = [_first_call(first, watch, _scenario(mode, made))]
    out = fn().clone()
    checks = _check(out, spec, made)
    graded = grads.checks(fn, made)  # with a backward: the gradients against float64
    # the output's reason not to time first; else a NaN gradient's
    checks |= graded | {"not_timed": checks["not_timed"] or graded.get("not_timed")}
    if graded:  # what the forward saved for the backward, on one more untimed step
        checks["saved"] = _saved(mode, fn, made["notes"])
    graphs, breaks, reasons = ct.graph_info()
    info = {
        **base,
        **checks,
        "compile": tuple(records),
        "unique_graphs": graphs if mode not in ("eager", *GRAPH_MODES) else None,
        "graph_breaks": breaks if mode not in ("eager", *GRAPH_MODES) else None,
        "break_reasons": reasons,
        "generated_code": ct.generated_code(code_mark) if mode in INDUCTOR_MODES else None,
        "cuda_graph_compatible": _graph_ok(mode, device),
        "cudagraph_skip": ct.cudagraph_skip() if mode == "inductor-reduce-overhead" else None,
        "autotune": autotune.result(tuning, records[0] if records else None),
    }
    if checks["not_timed"]:  # NaN, inf or another shape: nothing a time could be quoted for
        return ModeResult(ran=False, error=f"{checks['not_timed']}: not timed", **info), None
    # a finite wrong answer is timed and flagged (tolerance_passed False): its report says
    # the speed is of a wrong answer, where a missing figure said nothing (issue 41)
    timing = measure(
        fn,
        device=device,
        label=mode,
        warmup=spec.warmup,
        repeat=spec.repeat,
        l2_flush=spec.l2_flush,
        progress=ctx.progress,
    )
    if device.type == "cuda" and mode not in ("eager", "cuda-graph", "dynamo-eager"):
        ctx.progress(f"{mode}: Triton kernel metadata (one untimed call)", None, None)
        # one more untimed call: which Triton kernels it launches, with their metadata
        info["triton_kernels"], info["triton_note"] = triton_meta.kernels(fn, code_mark)
    return ModeResult(ran=True, timing=timing, **info), fn


@contextmanager
def _first_caches(mode: str, made: dict) -> Iterator[dict]:
    """The caches a mode's first call compiles with: the naive A/B's compiled arm (naive_mode)
    an empty folder of the job's, so that its figure is a first compile of the graph whatever
    ran before; any other mode the worker's persistent ones, as earlier runs left them, and so
    does that arm where the job takes its cold first call from an earlier run (`reused`). Yields
    the cache state (ct.cache_watch), {} for a mode that compiles nothing."""
    if not compiles(mode):
        yield {}
        return
    empty = mode == made["naive_mode"] and made["reused"] is None
    where = cache_dirs(made["empty_caches"]) if empty else nullcontext()
    with where, ct.cache_watch(made["cache_token"], "empty" if empty else "persistent") as found:
        yield found


def _scenario(mode: str, made: dict) -> str:
    """The first call's record: the naive A/B's arm, where the job takes that arm's cold first
    call from an earlier run, keeps its own beside it under another name."""
    return (
        OWN_FIRST_CALL
        if mode == made["naive_mode"] and made["reused"] is not None
        else "first call"
    )


def _first_call(first_s: float, cache: dict, scenario: str = "first call") -> CompileLatency:
    """A compiled mode's own first call: its compile as configured, with the caches it had.
    Where Dynamo compiled nothing (this function was already compiled in the process), it says
    so: the seconds are then a call's, not a compile's."""
    latency = replace(ct.latency(scenario, first_s), **cache)
    detail = "compile as configured, " + (
        "with empty cache folders of its own (the naive A/B's compiled arm)"
        if latency.cache_dirs == "empty"
        else "with the worker's persistent caches as earlier runs left them"
    )
    if scenario == OWN_FIRST_CALL:
        detail += "; the naive A/B's cold first call is the earlier run's (compile_from_run)"
    if not latency.compiles:
        detail += "; 0 compiles: this graph was already compiled in the process"
    return replace(latency, detail=detail)


def _check(out, spec: RunSpec, made: dict) -> dict:
    """The output against the float64 reference under the workload's bound (correctness)."""
    _, atol = made["tolerance"]
    reductions = made["reductions"]
    return correctness.check(out, made["eager_out"], made["ref64"], spec.dtype, reductions, atol)


def _saved(mode: str, fn, notes: list) -> SavedForBackward | None:
    """What the mode's forward saved for its backward; None, and a note why, where counting
    failed (the mode's timings do not depend on it)."""
    try:
        return SavedForBackward(**saved.count(fn))
    except Exception as exc:  # a diagnostic's failure must not fail the mode
        notes.append(f"{mode}: saved tensors not counted: {correctness.one_line(repr(exc))}")
        return None


def _graph_ok(mode: str, device: torch.device) -> bool | None:
    if device.type != "cuda":
        return None
    if mode == "inductor-reduce-overhead":
        return ct.cudagraph_skip() is None
    return True if mode in GRAPH_MODES else None


def _prepare(spec: RunSpec, device: torch.device) -> dict:
    """The workload's inputs, eager's answer with its op list, the float64 reference."""
    work = ops.load(
        spec.option("workload"), spec.shape, spec.dtype, device, spec.seed, spec_params(spec)
    )
    eager_out, eager_ops = ops.eager_call(work.fn, work.inputs)
    first = work.inputs[0]
    return {
        "work": work,
        "eager_out": eager_out,
        "eager_ops": tuple(EagerOp(o.op, o.read_bytes, o.write_bytes) for o in eager_ops),
        "eager_bytes": sum(o.read_bytes + o.write_bytes for o in eager_ops),
        "ideal_bytes": ops.ideal_bytes(work, eager_out),
        "unit_bytes": first.numel() * first.element_size(),
        "ref64": ops.reference(work),
        "tolerance": ops.tolerance(work, spec.dtype),
        "reductions": ops.reduction_lengths(work),
        "flops": ops.flops(work),
    }


def run(spec: RunSpec, ctx: Context) -> FusionResult:
    import torch._inductor.config as inductor_config

    inductor_config.cpp.enable_kernel_profile = True  # name Inductor's C++ kernels in the profiler
    device = ctx.device
    made = _prepare(spec, device)
    made["limits"] = device_limits.read(device)
    made["notes"] = []
    grads.prepare(spec, made)  # a backward pass: refused here, in one line, if there is none
    modes = spec.option("modes").split(",")
    results, callables = [], {}
    made["naive_mode"], made["cache_token"] = latency_mode(modes), uuid.uuid4().hex
    # an earlier run with the same compile inputs: its compile records stand for this job's
    made["reused"] = reused = _reused(spec, ctx)
    # Phase 1, every timed figure of the job: modes, the fresh processes, the sweep, the ceiling
    with ct.empty_cache_root(device) as empty:
        made["empty_caches"] = empty  # the naive A/B's arm compiles there (_first_caches)
        for i, mode in enumerate(modes):
            ctx.progress(f"mode {i + 1}/{len(modes)}: {mode}", i, len(modes))
            try:
                found, callables[mode] = run_mode(mode, spec, made, ctx)
                results.append(found)
            except Exception as exc:  # one mode failing (a compile error) must not hide the rest
                error = f"{type(exc).__name__}: {exc}"[:2000]
                not_timed = correctness.one_line(error)
                results.append(ModeResult(mode=mode, ran=False, error=error, not_timed=not_timed))
    del made["ref64"]
    made.pop("grads", None)
    plain = spec.option("workload") == "pointwise"
    if not plain and (spec.option("fresh_process") or spec.option("mega_cache")):
        made["notes"].append(SUBPROCESS_NOTE)
    with ct.cache_watch(made["cache_token"], "persistent"):  # what it writes is this run's
        points = sweep(spec, results, ctx, made["notes"]) if spec.option("sweep") else ()
    _ceilings(spec, device, made, ctx)
    # the headline is in (every steady state, the ceiling): a page can draw it now
    ctx.phase("headline", _result(spec, device, results, points, made))
    # still timed, still a clean process: each callable's back-to-back loop and other clocks.
    # After the headline: on the H100 they took 0.6 s of the 0.8 s per mode before it.
    results = [cross_check(r, callables.get(r.mode), device, ctx) for r in results]
    inputs = made["work"].inputs
    if reused is None:  # else the server fills them from run #reused (fusion/report/reuse.py)
        results = compile_latencies(results, spec, inputs, ctx, callables, made["cache_token"])
    results = warm_from(results, made["cache_token"])  # every timed figure is in: read history
    ctx.phase("evidence", _result(spec, device, results, points, made))
    # Phase 2, the job's profiler sessions: after everything timed, on the same callables
    for i, mode in enumerate(results):
        if mode.ran and callables.get(mode.mode) is not None:
            ctx.progress(f"{mode.mode}: profiling {PROFILED_CALLS} warm calls", i, len(results))
            fused = mode.mode in FUSED
            results[i] = profile_mode(mode, callables[mode.mode], device, made["eager_ops"], fused)
    callables.clear()
    results = _share_triton(results)
    if spec.option("compile_trace") and reused is None:
        results = add_evidence(results, spec, inputs, ctx)
    return _result(spec, device, results, points, made)


def _reused(spec: RunSpec, ctx: Context) -> int | None:
    """The stored run whose compile latency and evidence the server lends this job, where the
    spec lets it (reuse_compile); None: measure them here."""
    found = ctx.reuse.get("compile_from_run")
    lent = isinstance(found, int) and not isinstance(found, bool)
    return found if lent and spec.option("reuse_compile") else None


def _ceilings(spec: RunSpec, device, made: dict, ctx: Context) -> None:
    """The memory ceilings every run measures; a compute-bound workload's matmul too."""
    ctx.progress("bandwidth ceiling (copy, add)", None, None)
    made["ceiling"] = ceilings(device, config.data_dir())
    made["compute"] = {}
    if get(spec.option("workload")).bound == "compute":
        ctx.progress("compute ceiling (matmul)", None, None)
        dtype = made["work"].inputs[0].dtype
        tflops, detail = matmul_tflops(device, dtype)
        peak, peak_detail = peak_tflops(device, spec.dtype)
        made["compute"] = {
            "matmul_tflops": tflops,
            "matmul_detail": detail,
            "peak_tflops": peak,
            "peak_detail": peak_detail,
        }


def _result(spec: RunSpec, device, results: list, points: tuple, made: dict) -> FusionResult:
    """The job's result from what it has so far: at the phase boundary (timed, not yet
    profiled or traced) and at its end."""
    work = made["work"]
    first, (limits, limits_note) = work.inputs[0], made["limits"]
    rtol, atol = made["tolerance"]
    return FusionResult(
        device=str(device),
        dtype=spec.dtype,
        shape=spec.shape,
        numel=first.numel(),
        element_bytes=first.element_size(),
        rtol=rtol,
        atol=atol,
        modes=tuple(results),
        sweep=tuple(points),
        notes=tuple(made["notes"]),
        timed_before_profiling=True,
        variant=spec.option("workload"),
        params=tuple(sorted(work.params.items())),
        bound=get(spec.option("workload")).bound,
        ideal_bytes=made["ideal_bytes"],
        eager_bytes=made["eager_bytes"],
        eager_ops=made["eager_ops"],
        flops_per_call=made["flops"],
        reduction_lengths=made["reductions"],
        device_limits=limits,
        limits_note=limits_note,
        training_pass=passes.of(spec),
        cache_token=made["cache_token"],
        compile_from_run=made["reused"],
        **made.get("step_bytes", {}),
        **made["ceiling"],
        **made["compute"],
    )


def _share_triton(results: list[ModeResult]) -> list[ModeResult]:
    """cuda-graph-inductor replays the inductor mode's compiled code: when its own compile was
    that mode's (cached, nothing loaded), it shares that mode's Triton metadata."""
    by = {r.mode: r for r in results}
    graph, inductor = by.get("cuda-graph-inductor"), by.get("inductor")
    if not (graph and inductor and graph.ran and inductor.triton_kernels) or graph.triton_kernels:
        return results
    shared = replace(graph, triton_kernels=inductor.triton_kernels, triton_note=None)
    return [shared if r is graph else r for r in results]
