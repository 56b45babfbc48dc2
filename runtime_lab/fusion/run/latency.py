"""Fusion's compile latency: cold, warm cache, warm process, and the fresh-process figures."""

from __future__ import annotations

from dataclasses import replace

from runtime_lab.fusion.result import CompileLatency, ModeResult
from runtime_lab.fusion.run.fresh_process import fresh_process_latency, mega_cache_latency
from runtime_lab.fusion.run.modes import INDUCTOR_MODES, build
from runtime_lab.lab import compile_tools as ct
from runtime_lab.lab.base import Context
from runtime_lab.spec import RunSpec

SUBPROCESS_NOTE = (
    "fresh-process and mega-cache compile the pointwise workload in interpreters of their own: "
    "not run for other workloads."
)


def _latencies(mode: str, spec: RunSpec, inputs: tuple, ctx: Context) -> list[CompileLatency]:
    """Cold (fresh cache dirs), warm cache (persistent dirs, state reset), warm process."""
    device = ctx.device
    ctx.progress(f"{mode}: cold compile (fresh caches)", None, None)
    with ct.fresh_cache_dirs(device):
        ct.reset()
        cold = ct.timed_call(build(mode, spec, inputs, fresh=True), device)
        found = [ct.latency("cold", cold, "fresh Inductor and Triton cache directories")]
    ctx.progress(f"{mode}: compile with the persistent cache", None, None)
    ct.reset()
    first = ct.timed_call(build(mode, spec, inputs, fresh=True), device)
    if ct.latency("warm-cache", first).fx_cache_misses:  # cache was empty: fill it, then measure
        ct.reset()
        ct.timed_call(build(mode, spec, inputs, fresh=True), device)
    ct.reset()
    fn = build(mode, spec, inputs, fresh=True)
    warm = ct.timed_call(fn, device)
    found.append(
        ct.latency("warm-cache", warm, "persistent cache in the data directory, state reset")
    )
    ct.clear_records()  # keep the compiled code; count only what this call does
    again = ct.timed_call(fn, device)
    found.append(ct.latency("warm-process", again, "already compiled: guard check and run only"))
    return found


def compile_latencies(
    results: list, spec: RunSpec, inputs: tuple, ctx: Context, callables: dict
) -> list:
    """Compile latency, still timed in this clean process, after every steady state: cold
    (fresh cache dirs), warm cache and warm process; then the fresh-process and mega-cache
    figures, each in interpreters of its own. The cold compile resets Dynamo, so the compiled
    callables are built again (from the warm cache) for the profiler."""
    mode = latency_mode([r.mode for r in results])
    compiled = next((r for r in results if r.mode == mode and r.compile), None)
    plain = spec.option("workload") == "pointwise"
    if spec.option("compile_latency") and compiled is not None:
        try:
            found = _latencies(mode, spec, inputs, ctx)
            # the job's own first call stays: the naive A/B reads it at the headline and at the
            # end (a warm-cache re-compile in its place changed the figure between the two)
            own = [c for c in compiled.compile if c.scenario == "first call"]
            results = [replace(r, compile=(*own, *found)) if r is compiled else r for r in results]
        except Exception as exc:  # the steady states stand; say why the latency is missing
            error = f"compile latency failed: {type(exc).__name__}: {exc}"[:2000]
            results = [replace(r, error=r.error or error) if r is compiled else r for r in results]
        _rebuild(callables, spec, inputs)
    if spec.option("fresh_process") and mode and plain:
        ctx.progress("cold compile in a fresh process", None, None)
        results = _add(results, mode, fresh_process_latency(mode, spec, ctx.device))
    if spec.option("mega_cache") and mode and plain:
        ctx.progress("mega-cache: save in one fresh process, load in another", None, None)
        results = _add(results, mode, mega_cache_latency(mode, spec, ctx.device))
    return results


def _rebuild(callables: dict, spec: RunSpec, inputs: tuple) -> None:
    """Each compiled mode's callable again, called once (a warm-cache compile, untimed), so no
    profiled call compiles; eager and the eager CUDA graph hold no Dynamo state."""
    for mode in [m for m, fn in callables.items() if fn is not None]:
        if mode not in ("eager", "cuda-graph"):
            callables[mode] = build(mode, spec, inputs)
            callables[mode]()


def latency_mode(modes: list[str]) -> str | None:
    compiled = [m for m in modes if m in INDUCTOR_MODES]
    return "inductor" if "inductor" in compiled else (compiled[0] if compiled else None)


def _add(results: list[ModeResult], mode: str, found: CompileLatency) -> list[ModeResult]:
    return [replace(r, compile=(*r.compile, found)) if r.mode == mode else r for r in results]
