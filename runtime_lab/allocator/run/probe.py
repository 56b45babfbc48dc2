"""Measuring memory in the worker: memory_stats marks, snapshot recording, host RSS sampling."""

from __future__ import annotations

import gc
import inspect
import pickle
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import psutil
import torch

from runtime_lab.allocator.result import (
    RssSample,
    SnapshotInfo,
    StepRecord,
    StreamBytes,
    TracePoint,
)
from runtime_lab.allocator.run import memtrace

RSS_EVERY_S = 0.02
TRACE_POINTS_PER_SCENARIO = 600  # × 5 scenarios: the stored run stays well under 1 MB
RSS_POINTS = 1500
DEFAULT_POOL = str((0, 0))
CLOCK_SLACK_US = 1000  # the allocator's approximate clock vs time.time()
# clear_history (newer torch) starts each recording empty; older ones are filtered by time
_HISTORY_PARAMS = inspect.signature(torch.cuda.memory._record_memory_history).parameters
_CLEAR = {"clear_history": True} if "clear_history" in _HISTORY_PARAMS else {}
# compile_context names the compiled graph ("Torch-Compiled Region: 0/0") of each allocation
COMPILE_CONTEXT = "compile_context" in _HISTORY_PARAMS
_CONTEXT = {"compile_context": True} if COMPILE_CONTEXT else {}


def process_rss() -> tuple[int, int]:
    """RSS of this process plus its children (Inductor compile workers), and how many."""
    me = psutil.Process()
    total, children = me.memory_info().rss, 0
    for child in me.children(recursive=True):
        try:
            total += child.memory_info().rss
            children += 1
        except psutil.Error:  # a compile worker may exit between listing and reading
            pass
    return total, children


class RssSampler:
    """Samples process_rss() on a daemon thread while the job runs, on the run's time axis."""

    def __init__(self, t0: float):
        self.t0, self.samples = t0, []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            rss, children = process_rss()
            self.samples.append(RssSample(time.time() - self.t0, rss, children))
            self._stop.wait(RSS_EVERY_S)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=2)

    def bounded(self) -> list[RssSample]:
        return memtrace.downsample(list(self.samples), RSS_POINTS, (lambda s: s.rss_bytes,))


class Probe:
    """What a scenario reports through: step marks, recorded snapshots, their curves."""

    def __init__(self, device: torch.device, data_dir: Path, max_entries: int):
        self.device, self.max_entries = device, max_entries
        self.cuda = device.type == "cuda"
        self.t0 = time.time()
        self.folder = data_dir / "allocator"
        self.run_id = uuid.uuid4().hex[:12]
        self.steps: list[StepRecord] = []
        self.trace: list[TracePoint] = []
        self.trace_total = 0
        self.snapshots: list[SnapshotInfo] = []
        self.segments_files: dict[str, str] = {}
        self._start_us = 0.0

    def stat(self, key: str) -> int | None:
        return int(torch.cuda.memory_stats(self.device).get(key, 0)) if self.cuda else None

    def sync(self) -> None:
        if self.cuda:
            torch.cuda.synchronize(self.device)

    def reset_peak(self) -> None:
        if self.cuda:
            torch.cuda.reset_peak_memory_stats(self.device)

    def clean(self) -> None:
        """Drop what Python still holds and return the cache: each scenario starts level."""
        gc.collect()
        if self.cuda:
            torch.cuda.synchronize(self.device)
            torch.cuda.empty_cache()

    def mark(
        self, scenario: str, index: int, label: str, event: str, step_ms=None, saved_bytes=None
    ) -> None:
        self.steps.append(
            StepRecord(
                scenario=scenario,
                index=index,
                label=label,
                event=event,
                t_s=time.time() - self.t0,
                rss_bytes=process_rss()[0],
                allocated_bytes=self.stat("allocated_bytes.all.current"),
                reserved_bytes=self.stat("reserved_bytes.all.current"),
                peak_bytes=self.stat("allocated_bytes.all.peak"),
                inactive_split_bytes=self.stat("inactive_split_bytes.all.current"),
                step_ms=step_ms,
                saved_bytes=saved_bytes,
            )
        )

    @contextmanager
    def recording(self, scenario: str) -> Iterator[None]:
        """Record the allocator's history for a scenario; always switched off afterwards."""
        if not self.cuda:
            yield
            return
        start_us = self._start_us = time.time() * 1e6
        torch.cuda.memory._record_memory_history(
            max_entries=self.max_entries, stacks="python", device=self.device, **_CLEAR, **_CONTEXT
        )
        try:
            yield
        finally:
            try:
                self.sync()
                snapshot = torch.cuda.memory._snapshot(self.device)
            finally:
                torch.cuda.memory._record_memory_history(enabled=None, device=self.device)
            self._keep(scenario, snapshot, start_us)

    def keep_segments(self, scenario: str, snapshot: dict | None = None) -> None:
        """Save a snapshot while the scenario's segments are still held (call it before its
        final empty_cache()): the memory viewer's segment view of the end snapshot is empty."""
        if not self.cuda:
            return
        if snapshot is None:
            self.sync()
            snapshot = torch.cuda.memory._snapshot(self.device)
        snapshot = _since(snapshot, self.device.index or 0, self._start_us)
        path = self._dump(f"{scenario}-before-empty-cache", snapshot)
        self.segments_files[scenario] = str(path)

    def _dump(self, name: str, snapshot: dict) -> Path:
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{self.run_id}-{name}.pickle"
        with path.open("wb") as fh:
            pickle.dump(snapshot, fh)  # what _dump_snapshot writes: memory_viz reads this
        return path

    def _keep(self, scenario: str, snapshot: dict, start_us: float) -> None:
        path = self._dump(scenario, snapshot)
        index = self.device.index or 0
        points = memtrace.integrate(_since(snapshot, index, start_us), index)
        self.trace_total += len(points)
        self.trace += [
            TracePoint(
                scenario,
                p.time_us / 1e6 - self.t0,
                p.allocated,
                p.reserved,
                p.pending_free,
                p.action,
            )
            for p in memtrace.downsample(points, TRACE_POINTS_PER_SCENARIO)
        ]
        info = _info(scenario, path, snapshot, points, index, self.max_entries)
        self.snapshots.append(replace(info, segments_file=self.segments_files.get(scenario, "")))


def _since(snapshot: dict, index: int, start_us: float) -> dict:
    """Only this scenario's entries: without clear_history, earlier recordings stay in the buffer."""
    traces = list(snapshot.get("device_traces", []))
    if index < len(traces) and not _CLEAR:
        traces[index] = [e for e in traces[index] if e["time_us"] >= start_us - CLOCK_SLACK_US]
    return {**snapshot, "device_traces": traces}


def _info(scenario, path, snapshot, points, index, max_entries) -> SnapshotInfo:
    seg = memtrace.summarize_segments(snapshot, index)
    peaks = memtrace.peak_by_stream(snapshot, index)
    streams = sorted(set(peaks) | set(seg.by_stream))
    return SnapshotInfo(
        scenario=scenario,
        file=str(path),
        entries=len(points),
        max_entries=max_entries,
        segments=seg.segments,
        reserved_bytes=seg.reserved,
        allocated_bytes=seg.allocated,
        inactive_bytes=seg.inactive,
        inactive_blocks=seg.inactive_blocks,
        largest_inactive_bytes=seg.largest_inactive,
        private_pool_bytes=sum(v for k, v in seg.by_pool.items() if k != DEFAULT_POOL),
        streams=tuple(
            StreamBytes(
                "default" if s == 0 else str(s),
                seg.by_stream.get(s, (0, 0))[0],
                peaks.get(s, 0),
            )
            for s in streams
        ),
        peak_allocated_bytes=max((p.allocated for p in points), default=seg.allocated),
        peak_reserved_bytes=max((p.reserved for p in points), default=seg.reserved),
        compile_contexts=tuple(sorted(memtrace.compile_contexts(snapshot, index).items())),
        compile_context_recorded=COMPILE_CONTEXT,
    )
