"""A memory snapshot (torch.cuda.memory._snapshot()) → curves over time and a segment summary."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

MAX_POINTS = 1500  # per curve handed to a chart: Vega draws this instantly, a full trace would not
ALLOC, FREE_REQ, FREE_DONE = "alloc", "free_requested", "free_completed"
SEG_ADD = ("segment_alloc", "segment_map")  # segment_map/unmap: expandable segments
SEG_DROP = ("segment_free", "segment_unmap")


@dataclass(frozen=True)
class Point:
    """The allocator's state just after one trace entry (bytes; time in µs since the epoch)."""

    time_us: int
    allocated: int  # alloc − free_completed: blocks handed out and not yet reusable
    pending_free: int  # freed by Python but waiting on another stream (record_stream)
    reserved: int  # segments held from cudaMalloc
    action: str
    stream: int


@dataclass(frozen=True)
class SegmentSummary:
    """The final state in `segments`: where reserved memory is, and how much is free but held."""

    segments: int
    reserved: int
    allocated: int  # active_allocated blocks
    pending_free: int  # active_pending_free blocks
    inactive: int  # cached free blocks inside segments: reserved − allocated − pending
    inactive_blocks: int
    largest_inactive: int
    requested: int  # what callers asked for (allocations are rounded up to 512 B / segments)
    by_stream: dict[int, tuple[int, int]]  # stream → (reserved, allocated)
    by_pool: dict[str, int]  # memory pool id → reserved; (0, 0) is the default pool

    @property
    def fragmentation(self) -> float:
        """1 − largest free block / all free cached bytes: 0 when the cache is one block."""
        return 1 - self.largest_inactive / self.inactive if self.inactive else 0.0


def _delta(entry: dict[str, Any]) -> tuple[int, int, int]:
    """(allocated, pending_free, reserved) change caused by one entry."""
    action, size = entry["action"], int(entry["size"])
    if action == ALLOC:
        return size, 0, 0
    if action == FREE_REQ:
        return 0, size, 0
    if action == FREE_DONE:
        return -size, -size, 0
    if action in SEG_ADD:
        return 0, 0, size
    if action in SEG_DROP:
        return 0, 0, -size
    return 0, 0, 0  # oom, snapshot: markers without a change in bytes


def summarize_segments(snapshot: dict[str, Any], device: int = 0) -> SegmentSummary:
    segments = [s for s in snapshot.get("segments", []) if s.get("device", 0) == device]
    blocks = [b for s in segments for b in s["blocks"]]
    inactive = [b["size"] for b in blocks if b["state"] == "inactive"]
    by_stream: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    by_pool: dict[str, int] = defaultdict(int)
    for s in segments:
        by_stream[s["stream"]][0] += s["total_size"]
        by_stream[s["stream"]][1] += s["allocated_size"]
        by_pool[str(tuple(s.get("segment_pool_id", (0, 0))))] += s["total_size"]
    return SegmentSummary(
        segments=len(segments),
        reserved=sum(s["total_size"] for s in segments),
        allocated=sum(b["size"] for b in blocks if b["state"] == "active_allocated"),
        pending_free=sum(b["size"] for b in blocks if b["state"] == "active_pending_free"),
        inactive=sum(inactive),
        inactive_blocks=len(inactive),
        largest_inactive=max(inactive, default=0),
        requested=sum(
            b.get("requested_size", b["size"]) for b in blocks if b["state"] != "inactive"
        ),
        by_stream={k: (v[0], v[1]) for k, v in by_stream.items()},
        by_pool=dict(by_pool),
    )


def _trace(snapshot: dict[str, Any], device: int) -> list[dict[str, Any]]:
    traces = snapshot.get("device_traces", [])
    return traces[device] if device < len(traces) else []


def start_state(snapshot: dict[str, Any], device: int = 0) -> tuple[int, int, int]:
    """(allocated, pending_free, reserved) just before the first recorded entry.

    The trace is a ring buffer (max_entries) and starts when recording did, so what came
    before is missing: the end state (`segments`) is exact, the start is the end minus deltas.
    """
    deltas = [_delta(e) for e in _trace(snapshot, device)]
    end = summarize_segments(snapshot, device)
    return (
        end.allocated + end.pending_free - sum(d[0] for d in deltas),
        end.pending_free - sum(d[1] for d in deltas),
        end.reserved - sum(d[2] for d in deltas),
    )


def integrate(snapshot: dict[str, Any], device: int = 0) -> list[Point]:
    """Running totals after each entry of the device's trace, anchored on the final state."""
    allocated, pending, reserved = start_state(snapshot, device)
    points = []
    for entry in _trace(snapshot, device):
        da, dp, dr = _delta(entry)
        allocated, pending, reserved = allocated + da, pending + dp, reserved + dr
        points.append(
            Point(
                int(entry["time_us"]),
                allocated,
                pending,
                reserved,
                entry["action"],
                entry["stream"],
            )
        )
    return points


def peak_by_stream(snapshot: dict[str, Any], device: int = 0) -> dict[int, int]:
    """Per stream, the most bytes its recorded allocations held at once."""
    live: dict[int, int] = defaultdict(int)
    peak: dict[int, int] = defaultdict(int)
    for entry in _trace(snapshot, device):
        sign = {ALLOC: 1, FREE_DONE: -1}.get(entry["action"], 0)
        live[entry["stream"]] += sign * int(entry["size"])
        peak[entry["stream"]] = max(peak[entry["stream"]], live[entry["stream"]])
    return dict(peak)


def downsample(items: list, limit: int = MAX_POINTS, keys=None) -> list:
    """At most `limit` items in order, keeping each bucket's highest and lowest value of every
    key (peaks must survive: a chart that hid them would lie) and the very last item."""
    if len(items) <= limit:
        return list(items)
    keys = keys or (lambda p: p.allocated, lambda p: p.reserved)
    buckets = max(1, limit // (2 * len(keys) + 1))
    size = -(-len(items) // buckets)
    keep: set[int] = {len(items) - 1}
    for start in range(0, len(items), size):
        idx = range(start, min(start + size, len(items)))
        for key in keys:
            keep.add(max(idx, key=lambda i, k=key: k(items[i])))
            keep.add(min(idx, key=lambda i, k=key: k(items[i])))
    return [items[i] for i in sorted(keep)]


def compile_contexts(snapshot: dict[str, Any], device: int = 0) -> dict[str, int]:
    """Allocations per compile context (the compiled graph that was running), where the history
    was recorded with compile_context=True; {} otherwise or when nothing compiled ran."""
    found: dict[str, int] = defaultdict(int)
    for entry in _trace(snapshot, device):
        context = entry.get("compile_context")
        if entry.get("action") == "alloc" and context and context != "N/A":
            found[str(context)] += 1
    return dict(found)
