"""The side stream's op in each ordering, correct and broken, with slow producers to open races."""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass

import torch
from torch.profiler import record_function

from runtime_lab.streams.info import STREAM_VARIANTS
from runtime_lab.streams.result import VariantResult

_CYCLES_PER_MS: dict[int, float] = {}


def cycles_per_ms(device: torch.device) -> float:
    """torch.cuda._sleep spins for clock cycles: calibrate once per device (clocks vary)."""
    index = device.index or 0
    if index not in _CYCLES_PER_MS:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(1000)
        start.record()
        torch.cuda._sleep(20_000_000)
        end.record()
        torch.cuda.synchronize(device)
        _CYCLES_PER_MS[index] = 20_000_000 / start.elapsed_time(end)
    return _CYCLES_PER_MS[index]


@contextmanager
def lane(name: str):
    """Tag the work issued for one of the lab's streams (the trace parser maps kernels by it)."""
    with record_function(f"lab:stream:{name}"):
        yield


def mark(kind: str, label: str):
    return record_function(f"lab:mark:{kind}:{label}")


def matmul(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x @ y  # the seed's side-stream op


@dataclass
class Workload:
    """Buffers and streams shared by every trial; fresh random values are written per trial
    into the first `fresh` inputs (the seed's x and y; a catalog workload's activation, its
    first input: weights stay as made). z = fn(*inputs)."""

    inputs: tuple
    side: torch.cuda.Stream
    default: torch.cuda.Stream
    delay_cycles: int
    generator: torch.Generator
    fn: Callable = matmul
    fresh: int = 2
    names: tuple[str, ...] = ("x", "y")  # the inputs' names in CSAN's reports

    @property
    def x(self) -> torch.Tensor:
        return self.inputs[0]

    def spin(self) -> None:
        if self.delay_cycles > 0:
            torch.cuda._sleep(self.delay_cycles)  # the slow producer: a window for a race

    def produce(self) -> tuple:
        """Default stream: spin, write fresh values, keep copies for the reference."""
        with lane("default"):
            self.spin()
            for t in self.inputs[: self.fresh]:
                t.normal_(generator=self.generator)
            return self.snapshot(self.inputs)

    def snapshot(self, inputs: tuple) -> tuple:
        """The reference's inputs: copies of the rewritten ones (the rest never change)."""
        return tuple(t.clone() if i < self.fresh else t for i, t in enumerate(inputs))

    def op(self, first: torch.Tensor | None = None) -> torch.Tensor:
        """z = fn(inputs), with `first` in place of the first input when given."""
        return self.fn(self.x if first is None else first, *self.inputs[1:])

    def lane_of(self, stream: torch.cuda.Stream) -> str:
        return "side" if stream == self.side else "default"

    def record(self, stream: torch.cuda.Stream, label: str) -> torch.cuda.Event:
        event = torch.cuda.Event()
        with lane(self.lane_of(stream)), mark("record", label):
            event.record(stream)
        return event

    def wait(self, stream: torch.cuda.Stream, event: torch.cuda.Event, label: str) -> None:
        with lane(self.lane_of(stream)), mark("wait", label):
            stream.wait_event(event)

    def side_op(self, a: torch.Tensor, ready: torch.cuda.Event | None, spin=True) -> tuple:
        """Side stream: (wait for ready,) (spin: it is a slow producer of z,) z = fn(a, …),
        record work_done."""
        with torch.cuda.stream(self.side), lane("side"):
            if ready is not None:
                self.wait(self.side, ready, "inputs_ready")
            if spin:
                self.spin()
            z = self.op(a)
            return z, self.record(self.side, "work_done")

    def consume(self, z: torch.Tensor, done: torch.cuda.Event | None) -> torch.Tensor:
        with lane("default"):
            if done is not None:
                self.wait(self.default, done, "work_done")
            z.record_stream(self.default)  # z was made on the side stream, freed on this one
            return z.clone()


# A trial returns (consumed z, the reference's inputs, did a new tensor reuse a freed block)
Trial = tuple[torch.Tensor, tuple, bool | None]


def correct(w: Workload) -> Trial:
    refs = w.produce()
    z, done = w.side_op(w.x, w.record(w.default, "inputs_ready"))
    return w.consume(z, done), refs, None


def missing_producer_wait(w: Workload) -> Trial:
    refs = w.produce()
    # reads the inputs while the default stream may still write them (no spin here: the
    # side stream is the fast reader, the default stream the slow producer)
    z, done = w.side_op(w.x, None, spin=False)
    return w.consume(z, done), refs, None


def missing_consumer_wait(w: Workload) -> Trial:
    refs = w.produce()
    z, _ = w.side_op(w.x, w.record(w.default, "inputs_ready"))
    return w.consume(z, None), refs, None  # reads z while the side stream may still write


def _early_free(w: Workload, protect: str) -> Trial:
    """A temporary from the default stream's pool, used on the side stream, then deleted."""
    with lane("default"):
        w.spin()
        tmp = torch.randn(w.x.shape, generator=w.generator, device=w.x.device, dtype=w.x.dtype)
        for t in w.inputs[1 : w.fresh]:  # the seed's y
            t.normal_(generator=w.generator)
        refs = w.snapshot((tmp, *w.inputs[1:]))
    z, done = w.side_op(tmp, w.record(w.default, "inputs_ready"))
    with lane("default"):
        if protect == "record_stream":
            tmp.record_stream(w.side)  # the allocator now waits for the side stream's work
        elif protect == "event":
            w.wait(w.default, done, "work_done")  # later default-stream work runs after it
        freed = tmp.data_ptr()
        del tmp
        fresh = torch.empty_like(refs[0]).normal_(generator=w.generator)  # may take tmp's block
        reused = fresh.data_ptr() == freed
    return w.consume(z, done), refs, reused


def wait_stream(w: Workload) -> Trial:
    refs = w.produce()
    with torch.cuda.stream(w.side), lane("side"):
        with mark("wait_stream", "default"):
            w.side.wait_stream(w.default)
        w.spin()
        z = w.op()
    with lane("default"), mark("wait_stream", "side"):
        w.default.wait_stream(w.side)
    return w.consume(z, None), refs, None


def synchronize(w: Workload) -> Trial:
    refs = w.produce()
    with mark("sync", "after producer"):
        torch.cuda.synchronize()  # the host blocks until the producer is done
    with torch.cuda.stream(w.side), lane("side"):
        w.spin()
        z = w.op()
    with mark("sync", "after side work"):
        torch.cuda.synchronize()
    return w.consume(z, None), refs, None


def serial(w: Workload) -> Trial:
    refs = w.produce()
    with lane("default"):
        w.spin()
        z = w.op()
        return z.clone(), refs, None


VARIANT_FUNCTIONS: dict[str, Callable[[Workload], Trial]] = {
    "correct": correct,
    "missing-producer-wait": missing_producer_wait,
    "missing-consumer-wait": missing_consumer_wait,
    "early-free": lambda w: _early_free(w, "none"),
    "early-free-record-stream": lambda w: _early_free(w, "record_stream"),
    "early-free-event": lambda w: _early_free(w, "event"),
    "wait-stream": wait_stream,
    "synchronize": synchronize,
    "serial": serial,
}


def run_trials(
    name: str, w: Workload, trials: int, tolerance: tuple[float, float], progress
) -> VariantResult:
    """Repeat one variant with fresh inputs; compare each consumed z with a serial reference."""
    fn = VARIANT_FUNCTIONS[name]
    rtol, atol = tolerance
    diffs, host_ms, device_ms = [], [], []
    reused = mismatches = nonfinite = 0
    for i in range(trials):
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record(w.default)
        t0 = time.perf_counter()
        consumed, refs, took_block = fn(w)
        host_ms.append((time.perf_counter() - t0) * 1e3)
        end.record(w.default)
        torch.cuda.synchronize()
        device_ms.append(start.elapsed_time(end))
        reference = w.fn(*refs)  # after a full synchronize: nothing can race with it
        # garbage read from a reused block can hold NaN or inf: allclose counts it as wrong,
        # the stored diff is the largest finite one and the trial is counted as non-finite
        mismatches += int(not torch.allclose(consumed, reference, rtol=rtol, atol=atol))
        diff = (consumed.float() - reference.float()).abs()
        finite = diff[torch.isfinite(diff)]
        diffs.append(finite.max().item() if finite.numel() else 0.0)
        nonfinite += int(finite.numel() < diff.numel())
        reused += int(bool(took_block))
        progress(f"{name}: trial {i + 1}/{trials}", i + 1, trials)
    description, expected = STREAM_VARIANTS[name]
    return VariantResult(
        variant=name,
        description=description,
        expected_correct=expected,
        trials=trials,
        mismatches=mismatches,
        diffs=tuple(diffs),
        reused_block=reused,
        host_ms=tuple(host_ms),
        device_ms=tuple(device_ms),
        timeline=None,
        nonfinite_trials=nonfinite,
    )
