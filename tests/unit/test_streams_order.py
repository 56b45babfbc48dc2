"""Streams: every timed phase of a job runs before its profiler session (CPU fakes; H200 for real)."""

from __future__ import annotations

import contextlib
import json

import torch
from callorder import TIMED, TOOL, CallOrder

from runtime_lab.lab.base import Context
from runtime_lab.spec import build_spec
from runtime_lab.streams.result import HIDDEN_DEPENDENCY_LABEL, VariantResult
from runtime_lab.streams.run import cuda_parts, side_op
from runtime_lab.streams.run import experiment as streams_run


def _variant(name: str) -> VariantResult:
    return VariantResult(name, "", True, 1, 0, (0.0,), 0, (1.0,), (1.0,), None)


class _FakeOverlap:
    def __init__(self, order: CallOrder):
        self.order = order

    def gate(self):
        pass

    def __getattr__(self, name):  # serial, concurrent, default_op_between: profiled runs
        return lambda: self.order.log.append(f"profiled: overlap {name}")


def _fake_cuda_parts(monkeypatch, order: CallOrder) -> None:
    """Everything _run calls that needs a GPU, replaced by fakes that log when they are called."""
    log = order.log.append
    monkeypatch.setattr(cuda_parts, "cycles_per_ms", lambda device: 1000.0)
    monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: None)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda device=None: None)

    def trials(name, work, n, tolerance, progress):
        log(TIMED + f"variant {name}")
        return _variant(name)

    def overlap(work, repeat, two_streams="concurrent", warmup=2):
        log(TIMED + f"overlap {two_streams}")
        return (1.0,) * repeat, (0.5,) * repeat

    def blocking(cycles, delay_ms, trials, device):
        log((TIMED if delay_ms > 0 else "profiled: ") + "host blocking")
        return ()

    def event_timing(fn, inputs, side, repeat):
        log(TIMED + "event timing")
        return (1.0,) * repeat

    @contextlib.contextmanager
    def profile(activities, **config):  # e.g. experimental_config: the sync records
        log(TOOL + "profiler")

        class Prof:
            def export_chrome_trace(self, path):
                with open(path, "w") as fh:
                    json.dump({"traceEvents": []}, fh)

        yield Prof()

    monkeypatch.setattr(cuda_parts, "run_trials", trials)
    monkeypatch.setattr(cuda_parts, "time_overlap", overlap)
    monkeypatch.setattr(cuda_parts, "OverlapWork", lambda *a: _FakeOverlap(order))
    monkeypatch.setattr(cuda_parts, "host_blocking", blocking)
    monkeypatch.setattr(cuda_parts, "event_timing", event_timing)
    monkeypatch.setattr(
        cuda_parts, "warm_profiler", lambda acts, fn: log(TOOL + "profiler warm-up")
    )
    monkeypatch.setattr(cuda_parts, "profile", profile)
    fns = {n: (lambda w, n=n: log(f"profiled: variant {n}")) for n in cuda_parts.VARIANT_FUNCTIONS}
    monkeypatch.setattr(cuda_parts, "VARIANT_FUNCTIONS", fns)


def test_cuda_parts_time_everything_before_the_profiler(monkeypatch):
    order = CallOrder(monkeypatch)
    _fake_cuda_parts(monkeypatch, order)
    spec = build_spec(
        "streams", "64x64", device="cpu", options={"variant": "correct,serial", "trials": 5}
    )
    op = side_op.load(spec, torch.device("cpu"), torch.Generator().manual_seed(0))
    found = cuda_parts._run(spec, Context(torch.device("cpu"), lambda *a: None), op, None, None)
    order.assert_timed_first()
    assert order.timed() == [
        TIMED + "variant correct",
        TIMED + "variant serial",
        TIMED + "overlap concurrent",  # small kernels
        TIMED + "overlap default_op_between",  # the hidden-dependency case, at the same size
        TIMED + "overlap concurrent",  # GPU-filling
        TIMED + "host blocking",
        TIMED + "event timing",
    ]
    assert "profiled: overlap default_op_between" in order.log
    labels = [c.label for c in found["overlap"]]
    assert labels == ["small kernels", HIDDEN_DEPENDENCY_LABEL, "GPU-filling"]
    assert [c.hidden_dependency for c in found["overlap"]] == [False, True, False]


def test_a_workloads_overlap_cases_run_it_at_its_small_shape_and_the_specs(monkeypatch):
    order = CallOrder(monkeypatch)
    _fake_cuda_parts(monkeypatch, order)
    built = []
    real = cuda_parts.Chain
    monkeypatch.setattr(
        cuda_parts, "Chain", lambda inputs, fn: built.append(inputs) or real(inputs, fn)
    )
    options = {"workload": "rms_norm", "variant": "correct", "trials": 2}
    spec = build_spec("streams", "64x128", device="cpu", options=options)
    op = side_op.load(spec, torch.device("cpu"), torch.Generator().manual_seed(0))
    assert op.names == ("x", "w") and op.fresh == 1  # the activation is rewritten, w stays
    found = cuda_parts._run(spec, Context(torch.device("cpu"), lambda *a: None), op, None, None)
    shapes = [(c.label, c.size, c.shape) for c in found["overlap"]]
    assert shapes == [
        ("small kernels", 0, (1024, 1024)),  # rms_norm's CPU-sized shape
        (HIDDEN_DEPENDENCY_LABEL, 0, (1024, 1024)),
        ("GPU-filling", 0, (64, 128)),
    ]
    # two chains per case, each on inputs of its own: (x, w) of the case's shape
    assert [tuple(t.shape for t in inputs) for inputs in built] == [
        ((1024, 1024), (1024,)),
        ((1024, 1024), (1024,)),
        ((64, 128), (128,)),
        ((64, 128), (128,)),
    ]
    assert not torch.equal(built[2][0], built[3][0])


def test_cpu_run_times_the_matmul_and_opens_no_tool(monkeypatch):
    order = CallOrder(monkeypatch)
    order.watch_tools()
    order.wrap(streams_run, "measure", TIMED + "harness")
    spec = build_spec("streams", "64x64", device="cpu", warmup=1, repeat=3)
    result = streams_run.run(spec, Context(torch.device("cpu"), lambda *a: None))
    assert result.tolerance_passed and order.log == [TIMED + "harness"]
