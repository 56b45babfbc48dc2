"""The profiler's own sync records beside the lab's inferred waits and syncs, per ordering."""

from __future__ import annotations

import pandas as pd

from runtime_lab.streams.result import Mark, StreamsResult, SyncRecord, Timeline

WAIT_KINDS = ("wait", "wait_stream")
SAME_CALL_US = 0.5  # a mark's host time is its runtime call's start: the same number
NOT_A_MARK = {
    "cudaEventQuery": (
        " (a host poll of an event, which CUPTI reports as Event Sync; e.g. the caching "
        "allocator checking the events of blocks freed after record_stream)"
    ),
}
UNRESOLVED = (
    "The profiler left `wait_on_stream` (and the awaited record's correlation id) unresolved "
    "(-1) on {n} of {total} Stream Wait Event records: it says which stream waited and on which "
    "CUDA event id, not which stream's record that event was. The lab's pairing of a wait with "
    "its record (the latest record of the same label) is inferred from stream order alone there."
)


def _lab(m: Mark) -> str:
    return f"{m.kind} {m.label} on {m.lane} at {m.host_us:,.1f} µs"


def _profiler(r: SyncRecord) -> str:
    event = f", event {r.event_id}" if r.event_id not in (None, -1) else ""
    call = f" ({r.call})" if r.call else ""
    return f"{r.kind}{call} on {r.lane}{event} at {r.host_us:,.1f} µs"


def _pairs(timeline: Timeline) -> list[tuple[Mark | None, SyncRecord | None]]:
    """Each profiler record with the lab mark of the same runtime call (the mark's host time is
    that call's start), in time order; marks and records left over are rows of their own."""
    marks = [m for m in timeline.marks if m.kind in (*WAIT_KINDS, "sync")]
    used: set[int] = set()
    pairs = []
    for record in timeline.syncs:
        match = next(
            (
                i
                for i, m in enumerate(marks)
                if i not in used
                and record.call_us is not None
                and abs(m.host_us - record.call_us) < SAME_CALL_US
            ),
            None,
        )
        if match is not None:
            used.add(match)
        pairs.append((marks[match] if match is not None else None, record))
    pairs += [(m, None) for i, m in enumerate(marks) if i not in used]
    return sorted(pairs, key=lambda p: p[0].host_us if p[0] else p[1].host_us)


def _agreement(mark: Mark | None, record: SyncRecord | None) -> str:
    if mark is None:
        why = NOT_A_MARK.get(record.call or "", "")
        return f"not a lab mark: {record.call or 'no runtime call'}{why}"
    if record is None:
        return "no profiler record for the lab's mark"
    if mark.kind in WAIT_KINDS and mark.lane != record.lane:
        return f"lane differs: the lab says {mark.lane}, the profiler {record.lane}"
    if record.kind == "Stream Wait Event" and record.wait_on_stream in (None, -1):
        return "agree (wait_on_stream unresolved)"
    return "agree"


def sync_frame(result: StreamsResult) -> pd.DataFrame:
    """One row per lab wait/sync mark or profiler sync record, paired, per ordering."""
    rows = []
    for v in result.variants:
        if v.timeline is None or not v.timeline.syncs:
            continue
        for mark, record in _pairs(v.timeline):
            rows.append(
                {
                    "ordering": v.variant,
                    "lab (inferred from stream order)": _lab(mark) if mark else "—",
                    "profiler's record": _profiler(record) if record else "—",
                    "agreement": _agreement(mark, record),
                }
            )
    return pd.DataFrame(rows)


def sync_notes(result: StreamsResult) -> list[str]:
    if result.sync_events and result.sync_events != "on":
        return [f"Profiler sync records: {result.sync_events}."]
    waits = [
        r
        for v in result.variants
        if v.timeline
        for r in v.timeline.syncs
        if r.kind == "Stream Wait Event"
    ]
    if (
        result.sync_events == "on"
        and result.variants
        and not any(v.timeline and v.timeline.syncs for v in result.variants)
    ):
        return ["Profiler sync records were asked for, but the trace holds none."]
    unresolved = [r for r in waits if r.wait_on_stream in (None, -1)]
    return [UNRESOLVED.format(n=len(unresolved), total=len(waits))] if unresolved else []
