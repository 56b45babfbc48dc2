"""Kernel lists from torch.profiler on warm calls: CUDA kernels with launch params, or CPU ops."""

from __future__ import annotations

import json
import math
import os
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile, record_function

from runtime_lab.lab.training import BACKWARD_RANGE, FORWARD_RANGE
from runtime_lab.results import KernelRow

DEVICE_CATEGORIES = {"kernel", "gpu_memcpy", "gpu_memset"}
# CPU rows that are bookkeeping, not compute: allocation and the compiled-region wrappers
CPU_SKIP_PREFIXES = ("aten::empty", "aten::to", "aten::_to_copy", "aten::resize_", "aten::detach")
# Trace tools (Holistic Trace Analysis, TensorBoard) split a trace by torch's own step ranges and
# read the process's rank from distributedInfo, which torch writes only under torch.distributed.
STEP_PREFIX = "ProfilerStep#"
SINGLE_PROCESS = {"backend": "none", "rank": 0, "world_size": 1}
PASS_RANGES = (FORWARD_RANGE, BACKWARD_RANGE)  # PassKernels' order: forward, backward


def profile_calls(
    fn: Callable[[], object], device: torch.device, calls: int, trace_path: Path
) -> tuple[KernelRow, ...]:
    """Profile `calls` warm calls of fn, save the Chrome trace, and aggregate per kernel name."""
    prof = _recorded(fn, device, calls, trace_path)
    if device.type == "cuda":
        return _cuda_rows(trace_path, calls)
    return _cpu_rows(prof.key_averages(), calls)


@dataclass(frozen=True)
class PassKernels:
    """A training step's kernels split by pass: those run inside its forward range and those
    inside its backward range (lab/training.py marks both while a profiler records)."""

    forward: tuple[KernelRow, ...]
    backward: tuple[KernelRow, ...]


def profile_step(
    fn: Callable[[], object], device: torch.device, calls: int, trace_path: Path
) -> tuple[tuple[KernelRow, ...], PassKernels]:
    """profile_calls for a training step: every kernel, and the same kernels split by pass. A
    CPU op belongs to the pass whose range holds its start; a GPU kernel to the pass whose
    range holds its launch (the backward launches from autograd's own thread, inside the
    range of the call that waits for it)."""
    prof = _recorded(fn, device, calls, trace_path)
    if device.type == "cuda":
        events = json.loads(trace_path.read_text()).get("traceEvents", [])
        split = split_by_pass(events)
        rows = _cuda_rows_of(events, calls)
        return rows, PassKernels(*(_cuda_rows_of(split[n], calls) for n in PASS_RANGES))
    events = list(prof.events())
    ranges = _ranges([(e.name, e.time_range.start, e.time_range.end) for e in events])
    grouped: dict[str, list] = {name: [] for name in PASS_RANGES}
    for event in events:
        if (found := _within(ranges, event.time_range.start)) is not None:
            grouped[found].append(event)
    forward, backward = (_cpu_rows(_averages(grouped[n]), calls) for n in PASS_RANGES)
    return _cpu_rows(prof.key_averages(), calls), PassKernels(forward, backward)


def _recorded(fn: Callable[[], object], device: torch.device, calls: int, trace_path: Path):
    """`calls` warm calls of fn under the profiler, its Chrome trace saved: the profile."""
    cuda = device.type == "cuda"
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    warm_profiler(activities, fn)
    with profile(activities=activities) as prof:
        for step in range(calls):
            with step_range(step):
                fn()
        if cuda:
            torch.cuda.synchronize(device)
    export_trace(prof, trace_path)
    return prof


def _ranges(spans: list[tuple[str, float, float]]) -> list[tuple[str, float, float]]:
    """The forward and backward ranges among (name, start, end) spans."""
    return [(name, start, end) for name, start, end in spans if name in PASS_RANGES]


def _within(ranges: list[tuple[str, float, float]], at: float) -> str | None:
    """The name of the range holding time `at`, if one does (ranges of a step never overlap)."""
    return next((name for name, start, end in ranges if start <= at <= end), None)


@dataclass
class _Average:
    """A CPU op's calls and self time in one pass: what _cpu_rows reads of key_averages."""

    key: str
    count: int = 0
    self_cpu_time_total: float = 0.0


def _averages(events: list) -> list[_Average]:
    found: dict[str, _Average] = {}
    for event in events:
        average = found.setdefault(event.name, _Average(event.name))
        average.count += 1
        average.self_cpu_time_total += float(event.self_cpu_time_total)
    return list(found.values())


LAUNCH_CATEGORIES = ("cuda_runtime", "cuda_driver")


def split_by_pass(events: list[dict]) -> dict[str, list[dict]]:
    """Device events by the pass whose range holds their launch (joined by correlation id).
    ATen's kernels launch through the runtime API, Inductor's Triton kernels through the
    driver's (cuLaunchKernel): both are launches (with the runtime alone, every compiled
    backward read 0 kernels on the H200)."""
    spans = [
        (e.get("name"), float(e.get("ts", 0.0)), float(e.get("ts", 0.0)) + float(e.get("dur", 0)))
        for e in events
        if e.get("cat") == "user_annotation" and e.get("ph") == "X"
    ]
    ranges = _ranges(spans)
    launched = {
        e["args"]["correlation"]: float(e.get("ts", 0.0))
        for e in events
        if e.get("cat") in LAUNCH_CATEGORIES and "correlation" in e.get("args", {})
    }
    split: dict[str, list[dict]] = {name: [] for name in PASS_RANGES}
    for event in events:
        at = launched.get(event.get("args", {}).get("correlation"))
        found = _within(ranges, at) if at is not None else None
        if event.get("cat") in DEVICE_CATEGORIES and found is not None:
            split[found].append(event)
    return split


def step_range(step: int) -> record_function:
    """The `ProfilerStep#N` range torch's scheduled profiler puts around step N: a CPU
    user_annotation, so kernel rows and the streams parser (lab:-prefixed ranges) ignore it."""
    return record_function(f"{STEP_PREFIX}{step}")


def export_trace(prof, path: Path) -> None:
    """Write prof's Chrome trace to path, with the top-level distributedInfo trace tools read."""
    path.parent.mkdir(parents=True, exist_ok=True)
    prof.export_chrome_trace(str(path))
    data = json.loads(path.read_text())
    if "distributedInfo" in data:  # torch.distributed was initialised: its own info is right
        return
    data["distributedInfo"] = dict(SINGLE_PROCESS)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(data))
    os.replace(partial, path)  # a download never sees a half-written trace


_WARMED: set[tuple] = set()


def warm_profiler(activities: list, fn: Callable[[], object]) -> None:
    """The profiler's first session in a process inflates the ops it records (~10x seen on CPU):
    spend it on a throwaway call."""
    key = tuple(str(a) for a in activities)
    if key not in _WARMED:
        with profile(activities=activities):
            fn()
        _WARMED.add(key)


def _cuda_rows(trace_path: Path, calls: int) -> tuple[KernelRow, ...]:
    """Device events from the trace: only real kernels/copies (not syncs or annotations)."""
    return _cuda_rows_of(json.loads(trace_path.read_text()).get("traceEvents", []), calls)


def _cuda_rows_of(events: list[dict], calls: int) -> tuple[KernelRow, ...]:
    groups: dict[str, list[dict]] = defaultdict(list)
    for event in events:
        if event.get("cat") in DEVICE_CATEGORIES and event.get("ph") == "X":
            groups[event["name"]].append(event)
    rows = []
    for name, group in groups.items():
        args = group[0].get("args", {})
        total = sum(float(e.get("dur", 0.0)) for e in group)
        rows.append(
            KernelRow(
                name=name,
                calls_per_run=len(group) / calls,
                total_us=total / calls,
                mean_us=total / len(group),
                stream=args.get("stream"),
                grid=_dims(args.get("grid")),
                block=_dims(args.get("block")),
                registers=args.get("registers per thread"),
                shared_memory_bytes=args.get("shared memory"),
                profiler_blocks_per_sm=_number(args.get("blocks per SM")),
                profiler_warps_per_sm=_number(args.get("warps per SM")),
                profiler_occupancy_pct=_number(args.get("est. achieved occupancy %")),
            )
        )
    return tuple(sorted(rows, key=lambda r: -r.total_us))


def launch_order(trace_path: Path) -> tuple[str, ...]:
    """Every kernel of the trace by start time: the k-th launch of a call is its k-th op."""
    events = json.loads(trace_path.read_text()).get("traceEvents", [])
    kernels = [e for e in events if e.get("cat") == "kernel" and e.get("ph") == "X"]
    return tuple(e["name"] for e in sorted(kernels, key=lambda e: float(e.get("ts", 0.0))))


def _dims(value) -> str | None:
    return "x".join(str(v) for v in value) if isinstance(value, list) else None


def _number(value) -> float | None:
    """Kineto writes "inf" (a string) for a grid it could not divide by the SM count; a stored
    run is JSON, which has no infinity."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _cpu_rows(averages, calls: int) -> tuple[KernelRow, ...]:
    """CPU: eager's aten ops and Inductor's C++ kernels (needs cpp.enable_kernel_profile), from
    per-name averages (key_averages' rows: key, count, self_cpu_time_total)."""
    rows = []
    for event in averages:
        name = event.key
        is_kernel = "cpp_fused" in name or name.startswith("triton_")
        if not (is_kernel or name.startswith("aten::")) or name.startswith(CPU_SKIP_PREFIXES):
            continue
        total = float(event.self_cpu_time_total)
        rows.append(
            KernelRow(
                name=name,
                calls_per_run=event.count / calls,
                total_us=total / calls,
                mean_us=total / max(1, event.count),
            )
        )
    return tuple(sorted(rows, key=lambda r: -r.total_us))
