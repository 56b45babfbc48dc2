"""Two streams at once vs one, host calls that block vs enqueue, and event timing of the op."""

from __future__ import annotations

import time

import torch

from runtime_lab.streams.result import HostBlocking
from runtime_lab.streams.run.variants import lane, mark


class Chain:
    """One chain's op: the seed's square matmul into its own buffer (inputs a, b), or a
    workload's fn on its own inputs, its last output kept."""

    def __init__(self, inputs: tuple, fn=None):
        self.inputs, self.fn = inputs, fn
        self.out = torch.empty_like(inputs[0]) if fn is None else fn(*inputs)

    def step(self) -> None:
        if self.fn is None:
            torch.mm(*self.inputs, out=self.out)
        else:  # a new output on the chain's stream; the old one is only read after waits
            self.out = self.fn(*self.inputs)

    def probe(self) -> torch.Tensor:
        return self.out.reshape(-1)[0]


def square_chains(size: int, device, dtype, generator) -> tuple[Chain, Chain]:
    """The seed's two chains of square matmuls (drawn a, a, b, b as they always were)."""

    def rand():
        return torch.randn(size, size, device=device, dtype=dtype, generator=generator)

    a, b = [rand(), rand()], [rand(), rand()]
    return Chain((a[0], b[0])), Chain((a[1], b[1]))


class OverlapWork:
    """Two independent chains of the same op. Each run is queued behind a spin kernel (the
    gate) on the default stream, so both queues are full when it ends: how fast the host
    launches then does not decide how much the streams overlap."""

    def __init__(self, chains: tuple[Chain, Chain], kernels: int, device, gate_cycles: int):
        self.chains = chains
        # a per-step figure, on the default stream
        self.metric = torch.zeros((), device=device, dtype=chains[0].probe().dtype)
        self.kernels, self.gate_cycles = kernels, gate_cycles
        self.streams = [torch.cuda.Stream(device), torch.cuda.Stream(device)]
        self.default = torch.cuda.current_stream(device)

    def gate(self) -> None:
        with lane("default"):
            torch.cuda._sleep(self.gate_cycles)

    def serial(self) -> None:
        with lane("default"):
            for i in (0, 1):
                for _ in range(self.kernels):
                    self.chains[i].step()

    def concurrent(self) -> None:
        for s in self.streams:
            s.wait_stream(self.default)
        for _ in range(self.kernels):  # interleaved issue: both queues fill together
            for i, name in ((0, "a"), (1, "b")):
                with torch.cuda.stream(self.streams[i]), lane(name):
                    self.chains[i].step()
        for s in self.streams:
            self.default.wait_stream(s)

    def default_op_between(self) -> None:
        """concurrent() with a small default-stream op after each launch, reading that chain's
        output (so the default stream waits for it), and each chain waiting for the default
        stream before its next matmul (the usual guard for inputs made there). torch's side
        streams are non-blocking (the legacy default stream does not sync with them by itself):
        it is these explicit waits that chain a's matmul → the op → b's matmul → the op → …"""
        for _ in range(self.kernels):
            for i, name in ((0, "a"), (1, "b")):
                stream = self.streams[i]
                with torch.cuda.stream(stream), lane(name):
                    with mark("wait_stream", "default"):
                        stream.wait_stream(self.default)
                    self.chains[i].step()
                with lane("default"):
                    with mark("wait_stream", name):
                        self.default.wait_stream(stream)
                    self.metric.add_(self.chains[i].probe())
        for s in self.streams:
            self.default.wait_stream(s)


def time_overlap(
    work: OverlapWork, repeat: int, two_streams: str = "concurrent", warmup: int = 2
) -> tuple[tuple, tuple]:
    """Device ms of one stream and of the two-stream arrangement named (an OverlapWork method):
    from the gate's end (start event queued behind it) to the end of both chains."""
    samples: dict[str, tuple[float, ...]] = {}
    for name, fn in (("serial", work.serial), ("concurrent", getattr(work, two_streams))):
        pairs = []
        for i in range(warmup + repeat):
            torch.cuda.synchronize()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            work.gate()
            start.record(work.default)
            fn()
            end.record(work.default)
            if i >= warmup:
                pairs.append((start, end))
        torch.cuda.synchronize()
        samples[name] = tuple(s.elapsed_time(e) for s, e in pairs)
    return samples["serial"], samples["concurrent"]


def host_blocking(delay_cycles: int, delay_ms: float, trials: int, device) -> tuple:
    """Host µs of wait_event (enqueues, returns at once) vs event.synchronize() and
    torch.cuda.synchronize() (block until queued device work ends), with delay_ms queued."""
    side = torch.cuda.Stream(device)
    default = torch.cuda.current_stream(device)
    times: dict[str, list[float]] = {"wait": [], "event_sync": [], "device_sync": []}
    for _ in range(trials):
        with torch.cuda.stream(side), lane("side"):
            torch.cuda._sleep(delay_cycles)
            done = torch.cuda.Event()
            with mark("record", "done"):
                done.record(side)
        with lane("default"), mark("wait", "done"):
            t0 = time.perf_counter()
            default.wait_event(done)
            times["wait"].append((time.perf_counter() - t0) * 1e6)
        with mark("sync", "event.synchronize()"):
            t0 = time.perf_counter()
            done.synchronize()
            times["event_sync"].append((time.perf_counter() - t0) * 1e6)
        with lane("default"):
            torch.cuda._sleep(delay_cycles)
        with mark("sync", "torch.cuda.synchronize()"):
            t0 = time.perf_counter()
            torch.cuda.synchronize(device)
            times["device_sync"].append((time.perf_counter() - t0) * 1e6)
    return (
        HostBlocking("stream.wait_event(done)", False, tuple(times["wait"]), delay_ms),
        HostBlocking("done.synchronize()", True, tuple(times["event_sync"]), delay_ms),
        HostBlocking("torch.cuda.synchronize()", True, tuple(times["device_sync"]), delay_ms),
    )


def event_timing(fn, inputs: tuple, side: torch.cuda.Stream, repeat: int) -> tuple[float, ...]:
    """Event(enable_timing=True).elapsed_time around fn(*inputs) (the seed's x @ y) on the side
    stream, per call, as a user would time it by hand (no L2 flush, no warm-up beyond the runs
    before it)."""
    device = inputs[0].device
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(repeat)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(repeat)]
    side.wait_stream(torch.cuda.current_stream(device))
    with torch.cuda.stream(side):
        for start, end in zip(starts, ends, strict=True):
            start.record(side)
            _ = fn(*inputs)
            end.record(side)
    torch.cuda.synchronize(device)
    return tuple(s.elapsed_time(e) for s, e in zip(starts, ends, strict=True))
