"""Fusion & compile: silu(x + y) * (x - y), eager vs torch.compile modes, checked then timed."""

from __future__ import annotations

import math
import statistics
from dataclasses import replace

import torch

from runtime_lab import config
from runtime_lab.fusion.modes import GRAPH_MODES, INDUCTOR_MODES, LOOP_CALLS, build
from runtime_lab.fusion.result import FUSED_TRANSFERS, CompileLatency, FusionResult, ModeResult
from runtime_lab.fusion.run_clocks import PROFILED_CALLS, mode_clocks, profile_mode
from runtime_lab.fusion.run_evidence import add_evidence
from runtime_lab.fusion.run_fresh import fresh_process_latency, mega_cache_latency
from runtime_lab.fusion.run_sweep import sweep
from runtime_lab.lab import compile_tools as ct
from runtime_lab.lab import device_limits, triton_meta
from runtime_lab.lab.base import TOLERANCES, Context, element_bytes, torch_dtype
from runtime_lab.lab.ceiling import ceilings
from runtime_lab.lab.timing import CPU_FLUSH_BYTES, CUDA_FLUSH_BYTES, measure, measure_loop
from runtime_lab.lab.workload import CHAIN_LENGTH, WORKLOADS, eager_transfers, op_list
from runtime_lab.spec import RunSpec


def estimate_bytes(spec: RunSpec) -> int:
    # inputs + eager's three intermediates + one output per mode + the float64 reference chain;
    # the long chain holds its CHAIN_LENGTH intermediates and their mean too, in both dtypes
    n = math.prod(spec.shape)
    modes = len(spec.option("modes").split(","))
    flush = (CUDA_FLUSH_BYTES if spec.device != "cpu" else CPU_FLUSH_BYTES) if spec.l2_flush else 0
    live = CHAIN_LENGTH + 3 if spec.option("variant") == "long-chain" else 0
    return n * element_bytes(spec) * (5 + modes + live) + n * 8 * (6 + live) + flush


def _compare(out: torch.Tensor, eager: torch.Tensor, ref64: torch.Tensor, spec: RunSpec) -> dict:
    """Against eager under dtype-aware tolerances; failing that, a mode still passes when it is
    no further from the float64 truth than eager is. In bf16/fp16 a fused kernel keeps fp32
    intermediates and rounds once, so it can differ from eager by more than eager's own error
    while being the more accurate of the two (seen on the H200: bf16 16384², diff 0.19)."""
    rtol, atol = TOLERANCES[spec.dtype]
    diff = (out.double() - ref64).abs().max().item()
    eager_diff = (eager.double() - ref64).abs().max().item()
    close = bool(torch.allclose(out, eager, rtol=rtol, atol=atol))
    return {
        "max_abs_diff": (out.float() - eager.float()).abs().max().item(),
        "max_abs_diff_fp64": diff,
        "rel_err_fp64": diff / max(ref64.abs().max().item(), 1e-30),
        "tolerance_passed": close or diff <= eager_diff + atol,
    }


def _latencies(mode: str, spec: RunSpec, x, y, ctx: Context) -> tuple[object, list[CompileLatency]]:
    """Cold (fresh cache dirs), warm cache (persistent dirs, state reset), warm process."""
    device = ctx.device
    ctx.progress(f"{mode}: cold compile (fresh caches)", None, None)
    with ct.fresh_cache_dirs():
        ct.reset()
        cold = ct.timed_call(build(mode, spec, x, y, fresh=True), device)
        found = [ct.latency("cold", cold, "fresh Inductor and Triton cache directories")]
    ctx.progress(f"{mode}: compile with the persistent cache", None, None)
    ct.reset()
    first = ct.timed_call(build(mode, spec, x, y, fresh=True), device)
    if ct.latency("warm-cache", first).fx_cache_misses:  # cache was empty: fill it, then measure
        ct.reset()
        ct.timed_call(build(mode, spec, x, y, fresh=True), device)
    ct.reset()
    fn = build(mode, spec, x, y, fresh=True)
    warm = ct.timed_call(fn, device)
    found.append(
        ct.latency("warm-cache", warm, "persistent cache in the data directory, state reset")
    )
    ct.clear_records()  # keep the compiled code; count only what this call does
    again = ct.timed_call(fn, device)
    found.append(ct.latency("warm-process", again, "already compiled: guard check and run only"))
    return fn, found


def run_mode(mode: str, spec: RunSpec, tensors: tuple, ctx: Context) -> tuple[ModeResult, object]:
    """Build, check, then time a mode (harness, loop, other clocks); no profiler here. Returns
    the result and the callable, which the job profiles once every timed phase is done. Its
    compile is the first call's, caches as they are: the cold / warm-cache / warm-process
    latencies come after every mode's steady state (with_latencies), so a headline needs none."""
    x, y, eager_out, ref64 = tensors
    device = ctx.device
    fused = mode in INDUCTOR_MODES
    eager = eager_transfers(WORKLOADS[spec.option("variant")])  # from the op list eager runs
    transfers = FUSED_TRANSFERS if fused or mode == "cuda-graph-inductor" else eager
    base = {
        "mode": mode,
        "transfers_per_element": transfers,
        "bytes_moved": transfers * x.numel() * x.element_size(),
    }
    if mode in GRAPH_MODES and device.type != "cuda":
        return ModeResult(ran=False, error="CUDA graphs need a GPU", **base), None
    ct.clear_records()
    code_mark = ct.code_modules()
    compiles = []
    ctx.progress(f"{mode}: first call", None, None)
    fn = build(mode, spec, x, y)
    first = ct.timed_call(fn, device)
    if mode != "eager":
        detail = "compile as configured (caches as they are; 0 compiles: already compiled)"
        compiles = [ct.latency("first call", first, detail)]
    out = fn().clone()
    checks = _compare(out, eager_out, ref64, spec)
    graphs, breaks, reasons = ct.graph_info()
    info = {
        **base,
        **checks,
        "compile": tuple(compiles),
        "unique_graphs": graphs if mode not in ("eager", *GRAPH_MODES) else None,
        "graph_breaks": breaks if mode not in ("eager", *GRAPH_MODES) else None,
        "break_reasons": reasons,
        "generated_code": ct.generated_code(code_mark) if fused else None,
        "cuda_graph_compatible": _graph_ok(mode, device),
        "cudagraph_skip": ct.cudagraph_skip() if mode == "inductor-reduce-overhead" else None,
    }
    if not checks["tolerance_passed"]:  # correctness before timing: a wrong answer gets no speed
        error = "output outside tolerance against eager: not timed"
        return ModeResult(ran=False, error=error, **info), None
    timing = measure(
        fn,
        device=device,
        label=mode,
        warmup=spec.warmup,
        repeat=spec.repeat,
        l2_flush=spec.l2_flush,
        progress=ctx.progress,
    )
    typical_s = statistics.median(timing.primary_ms) / 1e3
    loop = measure_loop(fn, device, LOOP_CALLS, typical_s=typical_s)
    ctx.progress(f"{mode}: other clocks (torch.utils.benchmark, triton.do_bench)", None, None)
    clocks = mode_clocks(fn, timing, device)
    if device.type == "cuda" and mode not in ("eager", "cuda-graph", "dynamo-eager"):
        # one more untimed call: which Triton kernels it launches, with their metadata
        info["triton_kernels"], info["triton_note"] = triton_meta.kernels(fn, code_mark)
    result = ModeResult(
        ran=True,
        loop_calls=loop.calls,
        loop_us_per_call=loop.us_per_call,
        loop_host_us_per_call=loop.host_us_per_call,
        loop_us_samples=loop.samples_us,
        timing=timing,
        clocks=clocks,
        **info,
    )
    return result, fn


def _graph_ok(mode: str, device: torch.device) -> bool | None:
    if device.type != "cuda":
        return None
    if mode == "inductor-reduce-overhead":
        return ct.cudagraph_skip() is None
    return True if mode in GRAPH_MODES else None


def run(spec: RunSpec, ctx: Context) -> FusionResult:
    import torch._inductor.config as inductor_config

    inductor_config.cpp.enable_kernel_profile = True  # name Inductor's C++ kernels in the profiler
    device = ctx.device
    generator = torch.Generator(device=device).manual_seed(spec.seed)
    dtype = torch_dtype(spec.dtype)
    x = torch.randn(spec.shape, generator=generator, device=device, dtype=dtype)
    y = torch.randn(spec.shape, generator=generator, device=device, dtype=dtype)
    work = WORKLOADS[spec.option("variant")]
    eager_out = work(x, y)
    ref64 = work(x.double(), y.double())
    limits, limits_note = device_limits.read(device)
    plain, notes = spec.option("variant") == "pointwise", []
    modes = spec.option("modes").split(",")
    results, callables = [], {}
    # Phase 1, every timed figure of the job: modes, the fresh processes, the sweep, the ceiling
    for i, mode in enumerate(modes):
        ctx.progress(f"mode {i + 1}/{len(modes)}: {mode}", i, len(modes))
        try:
            found, callables[mode] = run_mode(mode, spec, (x, y, eager_out, ref64), ctx)
            results.append(found)
        except Exception as exc:  # one mode failing (e.g. a compile error) must not hide the rest
            error = f"{type(exc).__name__}: {exc}"[:2000]
            results.append(ModeResult(mode=mode, ran=False, error=error))
    del ref64
    if not plain and (spec.option("fresh_process") or spec.option("mega_cache")):
        notes.append(SUBPROCESS_NOTE)
    points = sweep(spec, results, ctx) if spec.option("sweep") else ()
    ctx.progress("bandwidth ceiling (copy, add)", None, None)
    ceiling = ceilings(device, config.data_dir())
    made = {"x": x, "limits": (limits, limits_note), "notes": notes, "ceiling": ceiling}
    # the headline is in (every steady state, the ceiling): a page can draw it now
    ctx.phase("headline", _result(spec, device, results, points, made))
    results = _compile_latencies(results, spec, (x, y), ctx, callables)
    ctx.phase("evidence", _result(spec, device, results, points, made))
    # Phase 2, the job's profiler sessions: after everything timed, on the same callables
    ops = op_list(work)
    for i, mode in enumerate(results):
        if mode.ran and callables.get(mode.mode) is not None:
            ctx.progress(f"{mode.mode}: profiling {PROFILED_CALLS} warm calls", i, len(results))
            results[i] = profile_mode(mode, callables[mode.mode], device, ops)
    callables.clear()
    results = _share_triton(results)
    if spec.option("compile_trace"):
        results = add_evidence(results, spec, (x, y), ctx)
    return _result(spec, device, results, points, made)


def _result(spec: RunSpec, device, results: list, points: tuple, made: dict) -> FusionResult:
    """The job's result from what it has so far: at the phase boundary (timed, not yet
    profiled or traced) and at its end."""
    x, (limits, limits_note) = made["x"], made["limits"]
    rtol, atol = TOLERANCES[spec.dtype]
    return FusionResult(
        device=str(device),
        dtype=spec.dtype,
        shape=spec.shape,
        numel=x.numel(),
        element_bytes=x.element_size(),
        rtol=rtol,
        atol=atol,
        modes=tuple(results),
        sweep=tuple(points),
        notes=tuple(made["notes"]),
        timed_before_profiling=True,
        variant=spec.option("variant"),
        device_limits=limits,
        limits_note=limits_note,
        **made["ceiling"],
    )


SUBPROCESS_NOTE = (
    "fresh-process and mega-cache compile the pointwise workload in interpreters of their own: "
    "not run for the long-chain variant."
)


def _compile_latencies(
    results: list, spec: RunSpec, tensors: tuple, ctx: Context, callables: dict
) -> list:
    """Compile latency, still timed in this clean process, after every steady state: cold
    (fresh cache dirs), warm cache and warm process; then the fresh-process and mega-cache
    figures, each in interpreters of its own. The cold compile resets Dynamo, so the compiled
    callables are built again (from the warm cache) for the profiler."""
    x, y = tensors
    device = ctx.device
    mode = _latency_mode([r.mode for r in results])
    compiled = next((r for r in results if r.mode == mode and r.compile), None)
    plain = spec.option("variant") == "pointwise"
    if spec.option("compile_latency") and compiled is not None:
        try:
            _, found = _latencies(mode, spec, x, y, ctx)
            results = [replace(r, compile=tuple(found)) if r is compiled else r for r in results]
        except Exception as exc:  # the steady states stand; say why the latency is missing
            error = f"compile latency failed: {type(exc).__name__}: {exc}"[:2000]
            results = [replace(r, error=r.error or error) if r is compiled else r for r in results]
        _rebuild(callables, spec, x, y)
    if spec.option("fresh_process") and mode and plain:
        ctx.progress("cold compile in a fresh process", None, None)
        results = _add(results, mode, fresh_process_latency(mode, spec, device))
    if spec.option("mega_cache") and mode and plain:
        ctx.progress("mega-cache: save in one fresh process, load in another", None, None)
        results = _add(results, mode, mega_cache_latency(mode, spec, device))
    return results


def _rebuild(callables: dict, spec: RunSpec, x, y) -> None:
    """Each compiled mode's callable again, called once (a warm-cache compile, untimed), so no
    profiled call compiles; eager and the eager CUDA graph hold no Dynamo state."""
    for mode in [m for m, fn in callables.items() if fn is not None]:
        if mode not in ("eager", "cuda-graph"):
            callables[mode] = build(mode, spec, x, y)
            callables[mode]()


def _latency_mode(modes: list[str]) -> str | None:
    compiled = [m for m in modes if m in INDUCTOR_MODES]
    return "inductor" if "inductor" in compiled else (compiled[0] if compiled else None)


def _add(results: list[ModeResult], mode: str, found: CompileLatency) -> list[ModeResult]:
    return [replace(r, compile=(*r.compile, found)) if r.mode == mode else r for r in results]


def _share_triton(results: list[ModeResult]) -> list[ModeResult]:
    """cuda-graph-inductor replays the inductor mode's compiled code: when its own compile was
    that mode's (cached, nothing loaded), it shares that mode's Triton metadata."""
    by = {r.mode: r for r in results}
    graph, inductor = by.get("cuda-graph-inductor"), by.get("inductor")
    if not (graph and inductor and graph.ran and inductor.triton_kernels) or graph.triton_kernels:
        return results
    shared = replace(graph, triton_kernels=inductor.triton_kernels, triton_note=None)
    return [shared if r is graph else r for r in results]
