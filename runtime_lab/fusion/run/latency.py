"""Fusion's compile latency: cold, warm cache, warm process, fresh process, with cache states."""

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


def _timed(fn, device, token: str, dirs: str, scenario: str, detail: str) -> CompileLatency:
    """One synchronised call of fn as a compile record, with the cache state it ran with."""
    with ct.cache_watch(token, dirs) as cache:
        seconds = ct.timed_call(fn, device)
    return replace(ct.latency(scenario, seconds, detail), **cache)


def _cold(mode: str, spec: RunSpec, inputs: tuple, ctx: Context, token: str, first) -> list:
    """The cold compile: the mode's own first call where that compiled with empty cache
    folders of its own (the naive A/B's arm: one compile serves both figures), else one more
    compile with fresh cache dirs, Dynamo reset."""
    if first is not None and first.cache_dirs == "empty" and first.compiles:
        detail = "the mode's first call in this job (empty cache folders of its own)"
        return [replace(first, scenario="cold", detail=detail)]
    ctx.progress(f"{mode}: cold compile (fresh caches)", None, None)
    with ct.fresh_cache_dirs(ctx.device):
        ct.reset()
        cold = build(mode, spec, inputs, fresh=True)
        detail = "fresh Inductor and Triton cache directories"
        return [_timed(cold, ctx.device, token, "empty", "cold", detail)]


def _latencies(
    mode: str, spec: RunSpec, inputs: tuple, ctx: Context, token: str, first=None
) -> list[CompileLatency]:
    """Cold (empty cache dirs), warm cache (persistent dirs, state reset), warm process;
    `first`: the mode's own first-call record."""
    device = ctx.device
    found = _cold(mode, spec, inputs, ctx, token, first)
    ctx.progress(f"{mode}: compile with the persistent cache", None, None)
    ct.reset()
    probe = _timed(build(mode, spec, inputs, fresh=True), device, token, "persistent", "", "")
    if probe.fx_cache_misses:  # this graph was not in the cache: it is now; measure a hit
        ct.reset()
        _timed(build(mode, spec, inputs, fresh=True), device, token, "persistent", "", "")
    ct.reset()
    fn = build(mode, spec, inputs, fresh=True)
    detail = "persistent cache in the data directory, state reset"
    found.append(_timed(fn, device, token, "persistent", "warm-cache", detail))
    ct.clear_records()  # keep the compiled code; count only what this call does
    detail = "already compiled: guard check and run only"
    found.append(_timed(fn, device, token, "persistent", "warm-process", detail))
    return found


def compile_latencies(
    results: list, spec: RunSpec, inputs: tuple, ctx: Context, callables: dict, token: str
) -> list:
    """Compile latency, still timed in this clean process, after every steady state: cold
    (fresh cache dirs), warm cache and warm process; then the fresh-process and mega-cache
    figures, each in interpreters of its own. The cold compile resets Dynamo, so the compiled
    callables are built again (from the warm cache) for the profiler. Each record carries the
    cache state it ran with; what its compiles wrote is recorded as the job `token`'s."""
    mode = latency_mode([r.mode for r in results])
    compiled = next((r for r in results if r.mode == mode and r.compile), None)
    plain = spec.option("workload") == "pointwise"
    if spec.option("compile_latency") and compiled is not None:
        try:
            # the job's own first call stays: the naive A/B reads it at the headline and at the
            # end (a warm-cache re-compile in its place changed the figure between the two)
            own = [c for c in compiled.compile if c.scenario == "first call"]
            found = _latencies(mode, spec, inputs, ctx, token, next(iter(own), None))
            results = [replace(r, compile=(*own, *found)) if r is compiled else r for r in results]
        except Exception as exc:  # the steady states stand; say why the latency is missing
            error = f"compile latency failed: {type(exc).__name__}: {exc}"[:2000]
            results = [replace(r, error=r.error or error) if r is compiled else r for r in results]
        with ct.cache_watch(token, "persistent"):  # what it writes is this run's
            _rebuild(callables, spec, inputs)
    # each child compiles with empty cache folders of its own; mega-cache's second child finds
    # what the first (this run) saved
    empty = {"cache_dirs": "empty", "cache_entries_before": 0}
    if spec.option("fresh_process") and mode and plain:
        ctx.progress("cold compile in a fresh process", None, None)
        found = replace(fresh_process_latency(mode, spec, ctx.device), **empty)
        results = _add(results, mode, found)
    if spec.option("mega_cache") and mode and plain:
        ctx.progress("mega-cache: save in one fresh process, load in another", None, None)
        found = replace(mega_cache_latency(mode, spec, ctx.device), **empty)
        writers = (token,) if found.fx_cache_hits or found.aot_cache_hits else ()
        results = _add(results, mode, replace(found, cache_writers=writers))
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
