"""The allocator scenarios: each runs the workload and reports through a Probe."""

from __future__ import annotations

import gc
import time

import torch

from runtime_lab.allocator.result import (
    CompareResult,
    EmptyCacheResult,
    GraphPoolResult,
    SideStreamResult,
    WorkloadPeak,
)
from runtime_lab.allocator.run import memtrace
from runtime_lab.allocator.run import work as rw
from runtime_lab.allocator.run.probe import DEFAULT_POOL, Probe
from runtime_lab.lab import compile_tools as ct
from runtime_lab.lab.base import torch_dtype
from runtime_lab.workloads import ops

Calls = list[tuple[tuple[int, ...], str]]
SLEEP_CYCLES = 100_000_000  # ~50 ms of GPU clock: the side stream is surely busy at the free
SIDE_SIDE_MAX = 4096  # the side-stream buffer: 64 MiB in fp32 shows the effect clearly
GRAPH_CALLS = 4  # reduce-overhead: warm-up, record, then replays
HELD = "forward (activations held)"  # a training step's mark between forward and backward


def _label(shape: tuple[int, ...], dtype: str, default: str) -> str:
    text = "x".join(str(d) for d in shape)
    return text if dtype == default else f"{text}:{dtype}"


def _step(probe: Probe, work: rw.Workload, name: str, i: int, label: str, shape, dtype) -> None:
    """One step of the batcher: inputs arrive, the op runs, everything is dropped."""
    probe.reset_peak()
    start = time.perf_counter()
    loaded = work.load(shape, dtype, probe.device)
    # a training step: marked between its passes, where activations for the backward are held
    out = work.run(loaded, lambda saved: probe.mark(name, i, label, HELD, saved_bytes=saved))
    probe.sync()
    probe.mark(name, i, label, "computed", (time.perf_counter() - start) * 1e3)
    del loaded, out
    probe.mark(name, i, label, "after del")


def sequence(probe: Probe, work: rw.Workload, calls: Calls, dtype: str) -> None:
    with probe.recording("sequence"):
        for i, (shape, dt) in enumerate(calls, start=1):
            _step(probe, work, "sequence", i, _label(shape, dt, dtype), shape, dt)
        probe.keep_segments("sequence")  # the cache as the sequence left it: all segments free
        probe.clean()
        probe.mark("sequence", len(calls), "end", "after empty_cache")


def _seed_compare(probe: Probe, work: rw.Workload, side: int, dtype: str) -> CompareResult:
    """The seed's figure, as before the catalog: pointwise at side × side."""
    shape = (side, side)
    label = _label(shape, dtype, dtype)
    loaded = work.load(shape, dtype, probe.device)
    eager, out = rw.peak_above(probe, loaded.fn, loaded.inputs)
    del out
    probe.mark("compiled", 1, f"eager {label}", "computed")
    fn = torch.compile(ct.own_copy(loaded.fn, "pointwise_allocator"), fullgraph=True)
    fn(*loaded.inputs)  # compile and one warm call: the compile's own buffers are not the peak
    probe.mark("compiled", 2, f"compile {label}", "computed")
    fused, out = rw.peak_above(probe, fn, loaded.inputs)
    probe.mark("compiled", 3, f"compiled {label}", "computed")
    nbytes = ops.nbytes(loaded.inputs)
    del loaded, out, fn
    return CompareResult(shape, eager, fused, nbytes)


def compiled(
    probe: Probe, work: rw.Workload, side: int, calls: Calls, dtype: str
) -> tuple[CompareResult | None, tuple[WorkloadPeak, ...]]:
    """Eager vs torch.compile peak of the workload at each shape of the sequence (pointwise
    first also at side × side, the figure runs before the catalog recorded)."""
    with probe.recording("compiled"):
        seed = _seed_compare(probe, work, side, dtype) if work.name == "pointwise" else None
        labels = [_label(shape, dt, dtype) for shape, dt in calls]
        peaks = rw.peaks(probe, work, calls, labels)
        probe.keep_segments("compiled")
        probe.clean()
        probe.mark("compiled", len(peaks), "end", "after empty_cache")
    return seed, peaks


def _round(
    probe: Probe, work: rw.Workload, calls: Calls, every: bool, call_ms: list[float] | None
) -> float:
    """One pass over the sequence; with every=True, empty_cache() after each step."""
    start = time.perf_counter()
    for shape, dtype in calls:
        loaded = work.load(shape, dtype, probe.device)
        out = work.run(loaded)
        del loaded, out
        if every:
            t = time.perf_counter()
            torch.cuda.empty_cache()  # synchronises the device and cudaFree()s every cached block
            if call_ms is not None:
                call_ms.append((time.perf_counter() - t) * 1e3)
    probe.sync()
    return (time.perf_counter() - start) * 1e3


def time_empty_cache(
    probe: Probe, work: rw.Workload, calls: Calls, rounds: int
) -> EmptyCacheResult:
    """Timed rounds, alternating never / every: run before any scenario turns memory history on
    (recording stacks slows every allocation, and the process stays slower after it is off)."""
    probe.clean()
    _round(
        probe, work, calls, False, None
    )  # warm-up: "never" runs from a filled cache, as in service
    never_reserved = probe.stat("reserved_bytes.all.current")
    never, every, call_ms = [], [], []
    every_reserved = None
    for _ in range(rounds):
        never.append(_round(probe, work, calls, False, None))
        every.append(_round(probe, work, calls, True, call_ms))
        every_reserved = probe.stat("reserved_bytes.all.current")  # what "every" leaves held
        _round(probe, work, calls, False, None)  # refill the cache before the next "never" round
    probe.clean()
    return EmptyCacheResult(
        rounds,
        len(calls),
        tuple(never),
        tuple(every),
        tuple(call_ms),
        never_reserved,
        every_reserved,
        timed_before_history=True,
    )


def empty_cache(
    probe: Probe, work: rw.Workload, calls: Calls, dtype: str, timed: EmptyCacheResult
) -> EmptyCacheResult:
    """The curves of one pass each, recorded; the timing was taken first (time_empty_cache)."""
    with probe.recording("empty-cache"):
        for every in (False, True):
            if every:  # the cache the never pass built, before empty_cache() starts returning it
                probe.keep_segments("empty-cache")
            probe.clean()
            for i, (shape, dt) in enumerate(calls, start=1):
                label = f"{'every' if every else 'never'} {_label(shape, dt, dtype)}"
                _step(probe, work, "empty-cache", i, label, shape, dt)
                if every:
                    torch.cuda.empty_cache()
                    probe.mark("empty-cache", i, label, "after empty_cache")
    return timed


def side_stream(probe: Probe, side: int, dtype: str) -> SideStreamResult:
    shape = (min(side, SIDE_SIDE_MAX),) * 2
    stream = torch.cuda.Stream(probe.device)
    reused, lag = {}, None
    with probe.recording("side-stream"):
        for record in (False, True):
            name = "record_stream" if record else "no record_stream"
            x = torch.rand(shape, device=probe.device, dtype=torch_dtype(dtype))
            address = x.data_ptr()
            stream.wait_stream(torch.cuda.current_stream(probe.device))
            with torch.cuda.stream(stream):
                torch.cuda._sleep(SLEEP_CYCLES)  # still busy when x is freed below
                z = x * 2  # allocated from the side stream's own pool
            if record:
                x.record_stream(stream)  # the block waits for the side stream's work
            del x
            y = torch.empty(shape, device=probe.device, dtype=torch_dtype(dtype))
            reused[record] = y.data_ptr() == address
            probe.mark("side-stream", int(record) + 1, name, "freed x, allocated y")
            torch.cuda.current_stream(probe.device).wait_stream(stream)
            probe.sync()
            del y, z
            probe.mark("side-stream", int(record) + 1, name, "after del")
        snap = torch.cuda.memory._snapshot(probe.device)
        lag = _free_lag_us(snap, probe.device.index or 0)
        side_bytes = memtrace.summarize_segments(snap, probe.device.index or 0).by_stream
    nbytes = shape[0] * shape[1] * torch.empty((), dtype=torch_dtype(dtype)).element_size()
    return SideStreamResult(
        nbytes,
        reused[False],
        reused[True],
        lag,
        side_bytes.get(stream.cuda_stream, (0, 0))[0],
    )


def _free_lag_us(snapshot: dict, index: int) -> float | None:
    """The longest free_requested → free_completed wait in the trace (record_stream's delay)."""
    requested: dict[int, int] = {}
    lags = []
    for e in snapshot["device_traces"][index]:
        if e["action"] == "free_requested":
            requested[e["addr"]] = e["time_us"]
        elif e["action"] == "free_completed" and e["addr"] in requested:
            lags.append(e["time_us"] - requested.pop(e["addr"]))
    return float(max(lags)) if lags else None


def cudagraphs(probe: Probe, work: rw.Workload, shape, dtype: str) -> GraphPoolResult:
    reserved = lambda: probe.stat("reserved_bytes.all.current")  # noqa: E731
    with probe.recording("cudagraphs"):
        loaded = work.load(shape, dtype, probe.device)
        before = reserved()
        probe.mark("cudagraphs", 1, "inputs", "computed")
        fn = loaded.fn
        own = ct.own_copy(fn, f"{work.name}_graphs") if hasattr(fn, "__code__") else fn
        fn = torch.compile(own, mode="reduce-overhead")
        for _ in range(GRAPH_CALLS):
            out = fn(*loaded.inputs)
            del out
        probe.sync()
        replaying = reserved()
        snap = torch.cuda.memory._snapshot(probe.device)
        pools = memtrace.summarize_segments(snap, probe.device.index or 0).by_pool
        probe.keep_segments("cudagraphs", snap)  # the private pool's segments, before empty_cache
        probe.mark("cudagraphs", 2, "replaying", "computed")
        del loaded
        gc.collect()
        torch.cuda.empty_cache()  # the graph's pool is not the cache: it stays
        after_del = reserved()
        probe.mark("cudagraphs", 3, "del + empty_cache", "after empty_cache")
        del fn
        ct.reset()  # drops the cudagraph trees, and with them the private pool
        probe.clean()
        after_reset = reserved()
        probe.mark("cudagraphs", 4, "reset + empty_cache", "after empty_cache")
    return GraphPoolResult(
        shape,
        before,
        replaying,
        sum(v for k, v in pools.items() if k != DEFAULT_POOL),
        after_del,
        after_reset,
    )
