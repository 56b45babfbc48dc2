"""A profiler Chrome trace → the lab's stream lanes, host calls and event marks (no torch).

The worker tags what it issues with record_function ranges: `lab:stream:<lane>` around the work
of each stream, `lab:mark:<kind>:<label>` around an event record / wait / sync, and
`lab:section:<name>` around each variant or case. A kernel's lane is the lab range that
encloses its launch (joined by the profiler's correlation id); the device-side
`gpu_user_annotation` of the same name is the fallback. Profiler stream ids are CUPTI's, not
`torch.cuda.Stream.stream_id`, so the lab never relies on them to name a stream.
"""

from __future__ import annotations

import bisect
import gzip
import json
from pathlib import Path
from typing import Any

from runtime_lab.streams.result import HostCall, KernelSpan, Mark, SyncRecord, Timeline

DEVICE_CATEGORIES = ("kernel", "gpu_memcpy", "gpu_memset")
LANE_PREFIX, MARK_PREFIX, SECTION_PREFIX = "lab:stream:", "lab:mark:", "lab:section:"
# runtime calls drawn on the host lane: the ones that order or wait, not every launch
ORDERING_CALLS = {
    "cudaEventRecord": "record",
    "cudaEventRecordWithFlags": "record",
    "cudaStreamWaitEvent": "wait",
    "cudaEventSynchronize": "sync",
    "cudaStreamSynchronize": "sync",
    "cudaDeviceSynchronize": "sync",
}


def load(path: str | Path) -> list[dict[str, Any]]:
    """Events of a Chrome trace file (gzip-compressed when its name ends in .gz)."""
    path = Path(path)
    raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    return json.loads(raw).get("traceEvents", [])


class _Ranges:
    """Host ranges with a name prefix, searchable by time (innermost enclosing range wins)."""

    def __init__(self, events: list[dict[str, Any]], prefix: str):
        found = [
            (float(e["ts"]), float(e["ts"]) + float(e.get("dur", 0.0)), e["name"][len(prefix) :])
            for e in events
            if e.get("cat") == "user_annotation" and str(e.get("name", "")).startswith(prefix)
        ]
        self.items = sorted(found)
        self.starts = [start for start, _, _ in self.items]

    def at(self, ts: float) -> tuple[float, float, str] | None:
        best = None
        for i in range(bisect.bisect_right(self.starts, ts) - 1, -1, -1):
            start, end, name = self.items[i]
            if start <= ts <= end and (best is None or end - start < best[1] - best[0]):
                best = (start, end, name)
        return best

    def names(self) -> list[str]:
        return list(dict.fromkeys(name for _, _, name in self.items))


def sections(events: list[dict[str, Any]]) -> list[tuple[str, float, float]]:
    """The lab's sections (variants, overlap cases) in the trace: (name, start_us, end_us)."""
    return [(name, start, end) for start, end, name in _Ranges(events, SECTION_PREFIX).items]


def timeline(events: list[dict[str, Any]], section: str | None = None) -> Timeline:
    """Kernels per lab lane, ordering host calls and marks, relative to the section's start."""
    lanes, marks = _Ranges(events, LANE_PREFIX), _Ranges(events, MARK_PREFIX)
    window = _window(events, section)
    launches = {}  # correlation → host ts of the runtime call that launched it
    calls = []
    for e in events:
        # cuBLASLt launches some kernels (nvjet) through the driver API: cat cuda_driver
        if e.get("cat") not in ("cuda_runtime", "cuda_driver") or e.get("ph") != "X":
            continue
        ts = float(e["ts"])
        if "correlation" in e.get("args", {}):
            launches[e["args"]["correlation"]] = ts
        if e["name"] in ORDERING_CALLS and window[0] <= ts <= window[1]:
            calls.append(e)
    kernels = _kernels(events, launches, lanes, window)
    t0 = window[0] if section else min([k[3] for k in kernels] + [float(c["ts"]) for c in calls])
    spans = tuple(
        KernelSpan(name, lane, sid, start - t0, end - t0, cat)
        for name, lane, sid, start, end, cat, _ in kernels
    )
    host_calls = tuple(_host_call(c, lanes, t0) for c in calls)
    lane_streams = tuple(sorted({(k.lane, k.stream_id) for k in spans}))
    return Timeline(
        kernels=spans,
        host_calls=host_calls,
        marks=_marks(calls, lanes, marks, spans, [k[6] for k in kernels], t0),
        lane_streams=lane_streams,
        syncs=_syncs(events, window, t0, {sid: lane for lane, sid in lane_streams}),
    )


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) else None


def _syncs(events, window, t0: float, lanes: dict[int, str]) -> tuple[SyncRecord, ...]:
    """The profiler's cuda_sync records in the window, on the lane of the stream that waits,
    each with the runtime call of the same correlation id (how the lab's marks are found)."""
    calls = {
        e["args"]["correlation"]: e
        for e in events
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})
    }
    found = []
    for e in events:
        if e.get("cat") != "cuda_sync" or not window[0] <= float(e.get("ts", 0.0)) <= window[1]:
            continue
        args = e.get("args") or {}
        stream = _int(args.get("stream"))
        lane = "host" if stream in (None, -1) else lanes.get(stream, f"stream {stream}")
        call = calls.get(args.get("correlation"))
        found.append(
            SyncRecord(
                kind=str(args.get("cuda_sync_kind") or e.get("name")),
                lane=lane,
                host_us=float(e["ts"]) - t0,
                duration_us=float(e.get("dur", 0.0)),
                event_id=_int(args.get("wait_on_cuda_event_id")),
                wait_on_stream=_int(args.get("wait_on_stream")),
                record_correlation=_int(args.get("wait_on_cuda_event_record_corr_id")),
                call=call["name"] if call else None,
                call_us=float(call["ts"]) - t0 if call else None,
            )
        )
    return tuple(sorted(found, key=lambda r: r.host_us))


def _window(events: list[dict[str, Any]], section: str | None) -> tuple[float, float]:
    if section is None:
        return float("-inf"), float("inf")
    for name, start, end in sections(events):
        if name == section:
            return start, end
    raise KeyError(f"section {section!r} is not in the trace")


def _kernels(events, launches, lanes: _Ranges, window) -> list[tuple]:
    """(name, lane, stream id, start, end, category, launch ts) for device events in the window."""
    fallback = _device_lane_names(events)
    found = []
    for e in events:
        if e.get("cat") not in DEVICE_CATEGORIES or e.get("ph") != "X":
            continue
        args = e.get("args", {})
        launch = launches.get(args.get("correlation"))
        if launch is None or not window[0] <= launch <= window[1]:
            continue
        stream = int(args.get("stream", -1))
        enclosing = lanes.at(launch)
        lane = enclosing[2] if enclosing else fallback.get(stream, f"stream {stream}")
        start = float(e["ts"])
        end = start + float(e.get("dur", 0.0))
        found.append((e["name"], lane, stream, start, end, e["cat"], launch))
    return sorted(found, key=lambda k: k[3])


def _device_lane_names(events: list[dict[str, Any]]) -> dict[int, str]:
    """Profiler stream id → lab lane, from the device-side copies of the lab's lane ranges."""
    names: dict[int, str] = {}
    for e in events:
        name = str(e.get("name", ""))
        if e.get("cat") == "gpu_user_annotation" and name.startswith(LANE_PREFIX):
            names.setdefault(int(e.get("args", {}).get("stream", e.get("tid", -1))), name[9:])
    return names


def _host_call(e: dict[str, Any], lanes: _Ranges, t0: float) -> HostCall:
    ts = float(e["ts"])
    enclosing = lanes.at(ts)
    whole_device = e["name"] == "cudaDeviceSynchronize"
    lane = "host" if whole_device or not enclosing else enclosing[2]
    return HostCall(e["name"], lane, ts - t0, ts + float(e.get("dur", 0.0)) - t0)


def _marks(calls, lanes: _Ranges, named: _Ranges, spans, launch_ts, t0) -> tuple[Mark, ...]:
    """Record / wait / sync marks with the device time each takes effect.

    A record completes when the work queued before it on its stream ends; a wait releases its
    stream when the awaited record has completed (the latest record with the same label, or
    the latest record on another lane when unlabelled). Both are inferred from stream order;
    the profiler does not link a wait to its record.
    """
    out: list[Mark] = []
    records: list[Mark] = []
    tagged = bool(named.items)
    for e in sorted(calls, key=lambda c: float(c["ts"])):
        kind = ORDERING_CALLS[e["name"]]
        ts = float(e["ts"])
        lane_range = lanes.at(ts)
        lane = lane_range[2] if lane_range else "host"
        tag = named.at(ts)
        if tagged and tag is None and kind != "sync":
            continue  # e.g. the allocator's own cross-stream events: a host call, not a mark
        label = tag[2].split(":", 1)[-1] if tag else e["name"]
        if tag and tag[2].startswith("wait_stream:"):
            # wait_stream(other) records an event on `other` and makes this lane wait for it
            if kind == "record":
                lane = label
            kind = "wait_stream" if kind == "wait" else kind
            label = f"{label} (wait_stream)"
        host = ts - t0
        before = [
            k.end_us for k, lt in zip(spans, launch_ts, strict=True) if k.lane == lane and lt < ts
        ]
        queued_end = max(before, default=host)
        if kind == "record":
            mark = Mark("record", label, lane, host, max(host, queued_end))
            records.append(mark)
        elif kind in ("wait", "wait_stream"):
            source = _awaited(records, label, lane)
            device = max(host, queued_end, source.device_us or host) if source else None
            mark = Mark(kind, label, lane, host, device)
        else:
            mark = Mark("sync", label, "host", host, host + float(e.get("dur", 0.0)))
        out.append(mark)
    return tuple(out)


def _awaited(records: list[Mark], label: str, lane: str) -> Mark | None:
    same = [r for r in records if r.label == label]
    if same:
        return same[-1]
    other = [r for r in records if r.lane != lane]
    return other[-1] if other else None


def overlap_pct(kernels: tuple[KernelSpan, ...], lane_a: str, lane_b: str) -> float:
    """100 × (time both lanes run a kernel) / (time either does): 0 serial, 100 fully parallel."""
    a, b = _union(kernels, lane_a), _union(kernels, lane_b)
    both = sum(_length(_intersect(a, b)))
    either = sum(_length(a)) + sum(_length(b)) - both
    return 100.0 * both / either if either > 0 else 0.0


def _union(kernels, lane: str) -> list[tuple[float, float]]:
    merged: list[list[float]] = []
    for start, end in sorted((k.start_us, k.end_us) for k in kernels if k.lane == lane):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(s, e) for s, e in merged]


def _intersect(a, b) -> list[tuple[float, float]]:
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        start, end = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if start < end:
            out.append((start, end))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def _length(intervals) -> list[float]:
    return [end - start for start, end in intervals]
