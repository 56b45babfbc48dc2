"""Headline figures of an allocator run (no torch): the keys the CLI JSON promises."""

from __future__ import annotations

import statistics
from typing import Any

from runtime_lab.allocator.result import AllocatorResult, StepRecord

BETWEEN_STEPS = ("after del", "after empty_cache")  # the sequence's marks between its steps


def _last(steps: list[StepRecord], event: str) -> StepRecord | None:
    found = [s for s in steps if s.event == event]
    return found[-1] if found else None


def _by_scenario(result: AllocatorResult) -> dict[str, list[StepRecord]]:
    grouped: dict[str, list[StepRecord]] = {}
    for s in result.steps:
        grouped.setdefault(s.scenario, []).append(s)
    return grouped


def _empty_cache_cost_ms(result: AllocatorResult) -> float | None:
    """Extra ms per step that empty_cache() after every step costs: median round difference."""
    e = result.empty_cache
    if e is None or not e.never_round_ms or not e.every_round_ms:
        return None
    diff = statistics.median(e.every_round_ms) - statistics.median(e.never_round_ms)
    return diff / e.steps


def _scenario_figures(steps: list[StepRecord]) -> dict[str, Any]:
    after_del = _last(steps, "after del")
    emptied = _last(steps, "after empty_cache")
    peaks = [s.peak_bytes for s in steps if s.peak_bytes is not None]
    return {
        "allocated_bytes": after_del.allocated_bytes if after_del else None,
        "reserved_bytes": after_del.reserved_bytes if after_del else None,
        "peak_bytes": max(peaks) if peaks else None,
        "reserved_after_empty_cache_bytes": emptied.reserved_bytes if emptied else None,
    }


def _compare(result: AllocatorResult) -> dict[str, Any] | None:
    c = result.compare
    if c is None:
        return None
    delta = None
    if c.eager_peak_bytes is not None and c.compiled_peak_bytes is not None:
        delta = c.eager_peak_bytes - c.compiled_peak_bytes
    return {
        "shape": list(c.shape),
        "eager_peak_bytes": c.eager_peak_bytes,
        "compiled_peak_bytes": c.compiled_peak_bytes,
        "delta_bytes": delta,
    }


def _workload(result: AllocatorResult) -> dict[str, Any]:
    """The workload and, per shape, one call's peak with its inputs (None: needs CUDA); only
    for runs since the catalog, so older runs keep the figures they had."""
    if not result.workload:
        return {}
    peaks = [p for p in result.peaks if p.error is None and p.input_bytes is not None]
    above = lambda p, v: None if v is None else p.input_bytes + v  # noqa: E731
    return {
        "workload": result.workload,
        "dims": list(result.dims),
        "params": dict(result.params),
        "call_peak_bytes": {
            p.label: {
                "ideal": p.input_bytes + p.output_bytes,
                "eager": above(p, p.eager_peak_bytes),
                "compiled": above(p, p.compiled_peak_bytes),
            }
            for p in peaks
        },
        "compile_warm_call_s": {p.label: p.warm_s for p in peaks},
    }


def key_figures(result: AllocatorResult) -> dict[str, Any]:
    """allocated/reserved after the last del, peak, reserved after empty_cache, per scenario;
    None where a figure needs CUDA (the CPU has no caching allocator to ask); on a CPU, what
    each step of the sequence held on the host instead."""
    return _allocator_figures(result) | _workload(result) | _host_steps(result)


def _host_steps(result: AllocatorResult) -> dict[str, Any]:
    """CPU runs: per shape of the sequence, the most host RSS its step held above the RSS
    before it (the largest over repeats of the shape); a GPU run's tensors are not in RSS."""
    if result.device != "cpu":
        return {}
    found: dict[str, int] = {}
    for label, held in _step_peaks(result):
        found[label] = max(held, found.get(label, 0))
    return {"host_rss_step_peak_bytes": found}


def _step_peaks(result: AllocatorResult) -> list[tuple[str, int]]:
    """(label, bytes) per step of the sequence: the highest RSS, sampled or marked, from the
    mark before the step to its 'computed' mark (inputs made, the call done, its output
    alive), above the RSS at that earlier mark (or at the first sample)."""
    start = (0.0, result.rss[0].rss_bytes) if result.rss else None
    found = []
    for mark in sorted(result.steps, key=lambda s: s.t_s):
        if mark.scenario == "sequence" and mark.event == "computed" and start is not None:
            inside = [r.rss_bytes for r in result.rss if start[0] < r.t_s <= mark.t_s]
            found.append((mark.label, max(0, max([*inside, mark.rss_bytes]) - start[1])))
        if mark.scenario != "sequence" or mark.event in BETWEEN_STEPS:
            start = (mark.t_s, mark.rss_bytes)  # not a mark within a step (a training step's)
    return found


def _allocator_figures(result: AllocatorResult) -> dict[str, Any]:
    per = {name: _scenario_figures(steps) for name, steps in _by_scenario(result).items()}
    e, s, g = result.empty_cache, result.side_stream, result.graphs
    return {
        "allocated_bytes": {k: v["allocated_bytes"] for k, v in per.items()},
        "reserved_bytes": {k: v["reserved_bytes"] for k, v in per.items()},
        "peak_bytes": {k: v["peak_bytes"] for k, v in per.items()},
        "reserved_after_empty_cache_bytes": {
            k: v["reserved_after_empty_cache_bytes"] for k, v in per.items()
        },
        "steps": [
            {
                "scenario": st.scenario,
                "step": st.index,
                "label": st.label,
                "event": st.event,
                "allocated_bytes": st.allocated_bytes,
                "reserved_bytes": st.reserved_bytes,
                "peak_bytes": st.peak_bytes,
                "rss_bytes": st.rss_bytes,
            }
            for st in result.steps
        ],
        "empty_cache_cost_ms": _empty_cache_cost_ms(result),
        "empty_cache_call_ms": statistics.median(e.call_ms) if e and e.call_ms else None,
        "compiled": _compare(result),
        "side_stream": None
        if s is None
        else {
            "reused_without_record_stream": s.reused_without_record,
            "reused_with_record_stream": s.reused_with_record,
            "free_lag_us": s.free_lag_us,
        },
        "cudagraphs_private_pool_bytes": g.private_pool_bytes if g else None,
        "host_rss_peak_bytes": max((r.rss_bytes for r in result.rss), default=None),
        "num_alloc_retries": result.num_alloc_retries,
        "num_ooms": result.num_ooms,
        "baseline_allocated_bytes": result.baseline_allocated_bytes,
        "final_allocated_bytes": result.final_allocated_bytes,
        "snapshots": [x.file for x in result.snapshots],
        # the same scenarios before their final empty_cache(): these still hold the segments
        "snapshots_before_empty_cache": [
            x.segments_file for x in result.snapshots if x.segments_file
        ],
        "skipped": list(result.skipped),
        "errors": {x.scenario: x.error for x in result.errors},
    }
