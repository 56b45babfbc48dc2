"""CUDA-graph bookkeeping of the reduce-overhead what-if, from what the worker saw (no torch)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

MODE = "reduce-overhead"  # the what-if's ModeRun
WARMUP_WHY = (
    "a new graph's first run: cudagraph trees run it once outside a graph (in the pool) to warm "
    "it up, and record it on its next call"
)
QUIET_WHY = (
    "no cudagraph-tree activity on this call: it ran outside CUDA graphs (Inductor returned "
    "its eager function, e.g. for a mutated input)"
)
Tap = tuple[str, int | None]  # ("warmup" | "record" | "replay", CUDA graph id)


def outcome(
    taps: Sequence[Tap],
    skips: int = 0,
    skip_reason: str | None = None,
    frame_skip: str | None = None,
    failed: bool = False,
) -> tuple[str | None, int | None, str | None]:
    """(state, graph id, reason) of one call, from the tree manager's entries it made (taps),
    the cudagraph_skips it added, the skip reason its compile recorded, and the reason the frame
    that ran it was skipped when it compiled. A recording wins over a replay: a call can end one
    execution and start a recording (the tree re-enters itself); a failed call has no state."""
    if failed:
        return None, None, None
    by_kind: dict[str, int | None] = {}
    for kind, graph in taps:
        by_kind.setdefault(kind, graph)
    if "record" in by_kind:
        return "recorded", by_kind["record"], None
    if "replay" in by_kind:
        return "replayed", by_kind["replay"], None
    if "warmup" in by_kind:
        return "warmup", None, WARMUP_WHY
    if skip_reason or frame_skip:
        return "skipped", None, skip_reason or frame_skip
    if skips:
        return "skipped", None, f"Inductor counted {skips} cudagraph skip(s) on this call"
    return "skipped", None, QUIET_WHY


def pool_bytes(segments: Iterable[dict[str, Any]], pool_id: Any) -> int:
    """Bytes of the memory snapshot's segments that belong to the pool (torch.cuda.memory_snapshot
    segments carry their pool as segment_pool_id, a pair of ints; tuples and lists compare)."""
    want = tuple(pool_id) if isinstance(pool_id, (list, tuple)) else pool_id
    total = 0
    for segment in segments:
        found = segment.get("segment_pool_id")
        found = tuple(found) if isinstance(found, (list, tuple)) else found
        if found == want:
            total += int(segment.get("total_size") or 0)
    return total


def counts(states: Iterable[str | None]) -> dict[str, int]:
    """How many calls warmed up, recorded, replayed or skipped."""
    found = {"warmup": 0, "recorded": 0, "replayed": 0, "skipped": 0}
    for state in states:
        if state in found:
            found[state] += 1
    return found
