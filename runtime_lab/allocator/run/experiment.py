"""Allocator: a workload's allocated / reserved / peak over a shape sequence, and what-ifs."""

from __future__ import annotations

import math

from runtime_lab import config
from runtime_lab.allocator.result import CUDA_ONLY, AllocatorResult, ScenarioError
from runtime_lab.allocator.run import ab
from runtime_lab.allocator.run import outside as run_outside
from runtime_lab.allocator.run import scenarios as sc
from runtime_lab.allocator.run import work as run_work
from runtime_lab.allocator.run.probe import Probe, RssSampler
from runtime_lab.lab import compile_tools as ct
from runtime_lab.lab.base import Context
from runtime_lab.shapes import DTYPE_BYTES, entry_text, parse_sequence
from runtime_lab.spec import RunSpec
from runtime_lab.workloads.registry import WORKLOADS

# pointwise: live tensors at eager's peak: x, y, silu(x + y), x − y, the output (x + y is freed)
EAGER_LIVE = 5
# the cache keeps blocks of earlier, other-sized steps while a big one runs: leave room for them
CACHE_SLACK = 2
WHY_CUDA = {
    "empty-cache": "it returns cached GPU blocks; the CPU allocator has no cache to return",
    "side-stream": "streams and record_stream are CUDA features",
    "cudagraphs": "reduce-overhead captures CUDA graphs into a private GPU pool",
}
COMPILED = ("compiled", "cudagraphs")
MAX_ERROR = 1500


def _calls(spec: RunSpec) -> list[tuple[tuple[int, ...], str]]:
    return [(shape, dtype or spec.dtype) for shape, dtype in parse_sequence(spec.option("shapes"))]


def _chosen(spec: RunSpec) -> list[str]:
    return spec.option("scenarios").split(",")


def estimate_bytes(spec: RunSpec) -> int:
    chosen, calls = _chosen(spec), _calls(spec)
    compare = spec.option("compare_side") ** 2 * DTYPE_BYTES[spec.dtype]
    need = compare * (EAGER_LIVE + CACHE_SLACK) if "side-stream" in chosen else 0
    if spec.option("workload") == "pointwise":  # as before the catalog: one tensor, ×7
        biggest = max(math.prod(s) * DTYPE_BYTES[d] for s, d in calls)
        if {"sequence", "empty-cache", "compiled"} & set(chosen):
            need = max(need, biggest * (EAGER_LIVE + CACHE_SLACK))
        if {"compiled", "cudagraphs"} & set(chosen):
            need = max(need, compare * (EAGER_LIVE + CACHE_SLACK))
        return need
    work = run_work.of(spec)  # what one eager call can hold at once, measured on meta tensors
    held = max(run_work.live_bytes(work, s, d) for s, d in dict.fromkeys(calls))
    # the cache keeps earlier steps' blocks; compiled also holds eager's output while it runs
    return max(need, held * (1 + CACHE_SLACK) if set(chosen) - {"side-stream"} else 0)


def _graph_shape(spec: RunSpec, work: run_work.Workload, calls) -> tuple[int, ...]:
    """cudagraphs' shape: the seed's side × side, any other workload its largest step."""
    if work.name == "pointwise":
        return (spec.option("compare_side"),) * 2
    return max((s for s, _ in calls), key=math.prod)


def _runners(spec: RunSpec, work: run_work.Workload, calls, timed):
    side, dtype = spec.option("compare_side"), spec.dtype
    return {
        "sequence": lambda p: sc.sequence(p, work, calls, dtype),
        "compiled": lambda p: sc.compiled(p, work, side, calls, dtype),
        "empty-cache": lambda p: sc.empty_cache(p, work, calls, dtype, timed),
        "side-stream": lambda p: sc.side_stream(p, side, dtype),
        "cudagraphs": lambda p: sc.cudagraphs(p, work, _graph_shape(spec, work, calls), dtype),
    }


def _broken(exc: BaseException) -> bool:
    """A CUDA error may leave the context unusable: let the worker restart instead."""
    return "CUDA error" in str(exc) or type(exc).__name__ == "AcceleratorError"


def _runs_here(name: str, probe: Probe) -> bool:
    return name not in CUDA_ONLY or probe.cuda


def _timed_first(probe: Probe, spec: RunSpec, ctx: Context, work, calls):
    """Every timed round of the job, before any scenario turns memory history on: a process
    that has recorded it stays slower (H200: 40 µs → 55 µs per small call after it is off)."""
    if "empty-cache" not in _chosen(spec) or not _runs_here("empty-cache", probe):
        return None, None
    ctx.progress("empty-cache: timed rounds (before any memory history)", None, None)
    try:
        return sc.time_empty_cache(probe, work, calls, spec.option("rounds")), None
    except Exception as exc:  # as a failing scenario: reported, the others still run
        if _broken(exc):
            raise
        probe.clean()
        return None, ScenarioError("empty-cache", f"{type(exc).__name__}: {exc}"[:MAX_ERROR])


def _scenarios(probe: Probe, spec: RunSpec, ctx: Context, work, calls, timed, timing_error):
    outcomes, skipped, errors = {}, [], []
    runners = _runners(spec, work, calls, timed)
    chosen = _chosen(spec)
    for i, name in enumerate(chosen, start=1):
        if not _runs_here(name, probe):
            skipped.append(f"{name}: needs CUDA ({WHY_CUDA[name]})")
            continue
        if name == "empty-cache" and timing_error is not None:
            errors.append(timing_error)  # its timing failed: no curves without the figure
            continue
        ctx.progress(f"scenario {i}/{len(chosen)}: {name}", i - 1, len(chosen))
        probe.clean()
        probe.reset_peak()  # else a scenario without per-step resets reports the previous peak
        try:
            outcomes[name] = runners[name](probe)
        except Exception as exc:  # one scenario failing (e.g. OOM) must not hide the others
            if _broken(exc):
                raise
            errors.append(ScenarioError(name, f"{type(exc).__name__}: {exc}"[:MAX_ERROR]))
        probe.clean()
    return outcomes, skipped, errors


def run(spec: RunSpec, ctx: Context) -> AllocatorResult:
    calls, work = _calls(spec), run_work.of(spec)
    probe = Probe(ctx.device, config.data_dir(), spec.option("max_entries"))
    probe.clean()
    baseline = probe.stat("allocated_bytes.all.current")
    retries, ooms = probe.stat("num_alloc_retries"), probe.stat("num_ooms")
    try:
        timed, timing_error = _timed_first(probe, spec, ctx, work, calls)  # no RSS thread yet
        with RssSampler(probe.t0) as rss:
            found = _scenarios(probe, spec, ctx, work, calls, timed, timing_error)
            outcomes, skipped, errors = found
    finally:
        if set(COMPILED) & set(_chosen(spec)):
            ct.reset()  # compiled frames and CUDA graph trees hold pools: drop them
        probe.clean()  # the worker's memory goes back to where the job found it
    configs, outside = (), None
    if spec.option("outside"):
        if probe.cuda:
            ctx.progress("memory outside the allocator (a fresh process)", None, None)
            outside = run_outside.run_outside(ctx.device, work.args(), calls[0])
        else:
            skipped.append("outside: needs CUDA (device memory outside PyTorch's allocator)")
    if spec.option("alloc_ab"):  # child processes: nothing of this worker's state is touched
        if probe.cuda:
            ctx.progress("allocator configurations A/B (a fresh process each)", None, None)
            configs = ab.run_configs(str(ctx.device), calls, work.args())
        else:
            skipped.append(
                "alloc_ab: needs CUDA (PYTORCH_ALLOC_CONF configures the CUDA allocator)"
            )
    ctx.progress("done", len(_chosen(spec)), len(_chosen(spec)))
    compare, peaks = outcomes.get("compiled") or (None, ())
    return AllocatorResult(
        device=str(ctx.device),
        dtype=spec.dtype,
        scenarios=tuple(_chosen(spec)),
        sequence=tuple(entry_text(s, d) for s, d in parse_sequence(spec.option("shapes"))),
        compare_side=spec.option("compare_side"),
        steps=tuple(probe.steps),
        trace=tuple(probe.trace),
        trace_points=probe.trace_total,
        rss=tuple(rss.bounded()),
        snapshots=tuple(probe.snapshots),
        compare=compare,
        empty_cache=outcomes.get("empty-cache"),
        side_stream=outcomes.get("side-stream"),
        graphs=outcomes.get("cudagraphs"),
        num_alloc_retries=_delta(probe.stat("num_alloc_retries"), retries),
        num_ooms=_delta(probe.stat("num_ooms"), ooms),
        baseline_allocated_bytes=baseline,
        final_allocated_bytes=probe.stat("allocated_bytes.all.current"),
        final_reserved_bytes=probe.stat("reserved_bytes.all.current"),
        skipped=tuple(skipped),
        errors=tuple(errors),
        # every scenario records memory history on CUDA, and the steps run inside it
        step_ms_under_history=probe.cuda and any(s.step_ms is not None for s in probe.steps),
        alloc_configs=configs,
        outside=outside,
        workload=work.name,
        dims=WORKLOADS[work.name].dims,
        params=work.params,
        peaks=peaks,
        training_pass=work.step,
    )


def _delta(after: int | None, before: int | None) -> int | None:
    """memory_stats counters are per process: this job's share is the difference."""
    return None if after is None or before is None else after - before
