"""Allocator's headline in plain words: what the cache kept and gave back, or what a CPU held."""

from __future__ import annotations

from typing import Any

from runtime_lab import passes
from runtime_lab.allocator.report import workload as rw
from runtime_lab.allocator.result import AllocatorResult
from runtime_lab.glossary import units

NO_CACHE = (
    "a CPU has no caching allocator, so its curves (allocated, reserved, what empty_cache() "
    "returns) need CUDA"
)


def headline(result: AllocatorResult, key: dict[str, Any]) -> str:
    """What ran, then the page's answer: on a GPU what the cache held after the sequence and
    what empty_cache() gave back; on a CPU that it needs CUDA, and what the host held."""
    if result.device == "cpu":
        return f"{_what(result)}: {NO_CACHE}. Host RSS instead: {_host(result, key)}"
    return f"{_what(result)}: {_cache(result, key)}{rw.headline_tail(result)}"


def _what(result: AllocatorResult) -> str:
    """'cross_entropy (tokens × vocab) bfloat16 on cuda:0, forward + backward' (runs before
    the catalog: the seed's pointwise)."""
    dims = f" ({' × '.join(result.dims)})" if result.dims else ""
    where = "CPU" if result.device == "cpu" else result.device
    step = passes.said(result.training_pass)
    return f"{result.workload or 'pointwise'}{dims} {result.dtype} on {where}{step}"


def _bytes(values: list[int | None]) -> list[str]:
    """Each value in the one unit of the largest (values read together)."""
    scale = units.scale("bytes", values)
    return [units.show("bytes", v, scale) for v in values]


def _cache(result: AllocatorResult, key: dict[str, Any]) -> str:
    peak = key["peak_bytes"].get("sequence")
    if peak is None:
        return (
            f"ran {', '.join(result.scenarios)}; what the cache keeps is read from the sequence "
            "scenario, not run here"
        )
    reserved = key["reserved_bytes"]["sequence"]
    left = key["reserved_after_empty_cache_bytes"]["sequence"]
    shown_reserved, shown_peak, shown_left = _bytes([reserved, peak, left])
    text = (
        f"the caching allocator still held {shown_reserved} reserved once the sequence's "
        f"tensors were freed (its peak allocated: {shown_peak})"
    )
    if left is None or reserved is None:
        return text
    if left == 0:
        return f"{text}; empty_cache() gave all of it back ({shown_left} left)"
    given = _bytes([reserved - left, reserved])[0]
    return f"{text}; empty_cache() gave back {given}, {shown_left} stayed (blocks still in use)"


def host_step(key: dict[str, Any]) -> str | None:
    """The sequence's step a CPU run is read by: of those with an ideal, the largest (where
    the difference shows most), else the one that held most; None without steps."""
    steps = key.get("host_rss_step_peak_bytes") or {}
    ideals = {k: v["ideal"] for k, v in (key.get("call_peak_bytes") or {}).items() if k in steps}
    if ideals:
        return max(ideals, key=ideals.get)
    return max(steps, key=steps.get) if steps else None


def _host(result: AllocatorResult, key: dict[str, Any]) -> str:
    """The step that shows most against its ideal, then the run's peak."""
    peak = key["host_rss_peak_bytes"]
    with_workers = " (compile workers included)" if _workers_at_peak(result) else ""
    label = host_step(key)
    if label is None:
        return f"the worker's RSS peaked at {_bytes([peak])[0]} over the run{with_workers}"
    ideal = ((key.get("call_peak_bytes") or {}).get(label) or {}).get("ideal")
    held = key["host_rss_step_peak_bytes"][label]
    shown_held, shown_ideal, top = _bytes([held, ideal, peak])
    against = f", {held / ideal:.1f}× its inputs + output ({shown_ideal})" if ideal else ""
    return (
        f"the {label} step peaked {shown_held} above its start{against}; the worker's RSS peaked at "
        f"{top} over the run{with_workers}"
    )


def _workers_at_peak(result: AllocatorResult) -> bool:
    """Whether Inductor's compile workers were alive at the run's RSS peak (they are in it)."""
    top = max(result.rss, key=lambda r: r.rss_bytes, default=None)
    return bool(top and top.children)
