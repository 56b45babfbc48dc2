"""Streams' side-stream op from the catalog: the spec's shapes, the orderings and overlap on its
output (CUDA's stream calls replaced by serial fakes on CPU), the figures and the report."""

from __future__ import annotations

import contextlib
import dataclasses

import pytest
import torch

from runtime_lab.lab.base import Context
from runtime_lab.results import Timing
from runtime_lab.spec import SpecError, build_spec
from runtime_lab.streams.report import build as report
from runtime_lab.streams.report import figures
from runtime_lab.streams.result import OverlapCase, StreamsResult, VariantResult
from runtime_lab.streams.run import experiment as streams_run
from runtime_lab.streams.run import side_op
from runtime_lab.streams.run.overlap import Chain, OverlapWork, event_timing
from runtime_lab.streams.run.variants import VARIANT_FUNCTIONS, Workload, run_trials


class _Stream:
    cuda_stream = 0

    def wait_event(self, event):
        pass

    def wait_stream(self, stream):
        pass


class _Event:
    def __init__(self, enable_timing=False):
        pass

    def record(self, stream=None):
        pass

    def elapsed_time(self, other):
        return 1.0


@pytest.fixture
def serial_cuda(monkeypatch):
    """torch.cuda's stream and event calls as no-ops: every "stream" runs in issue order."""
    monkeypatch.setattr(torch.cuda, "Event", _Event)
    monkeypatch.setattr(torch.cuda, "Stream", lambda device=None: _Stream())
    monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: _DEFAULT)
    monkeypatch.setattr(torch.cuda, "stream", lambda s: contextlib.nullcontext())
    monkeypatch.setattr(torch.cuda, "synchronize", lambda device=None: None)
    monkeypatch.setattr(torch.cuda, "_sleep", lambda cycles: None)
    monkeypatch.setattr(torch.Tensor, "record_stream", lambda self, stream: None)


_DEFAULT = _Stream()


def _spec(shape, **options):
    return build_spec("streams", shape, device="cpu", options=options)


def test_matmul_keeps_the_streams_shape_and_a_workload_takes_its_dims():
    seed = _spec("4096x4096")
    assert seed.option("workload") == "matmul" and seed.shape == (4096, 4096)
    assert _spec("8x64x32").shape == (8, 64, 32)  # a batch of (64 × 32) @ (32 × 64), as before
    assert build_spec("streams", None).shape == (4096, 4096)  # the CLI's default shape
    assert _spec("256x512", workload="rms_norm").shape == (256, 512)
    with pytest.raises(SpecError) as bad:
        _spec("8x64x32", workload="rms_norm")
    assert bad.value.problems == {
        "shape": "'8x64x32' has 3 dimensions; rms_norm takes 2: tokens × hidden (e.g. 4096x4096)"
    }
    with pytest.raises(SpecError, match="matmul has no parameter 'k'"):
        _spec("64x64", params="k=3")


def test_an_old_streams_spec_rebuilds_as_the_matmul_it_ran():
    old = {"experiment": "streams", "shape": [4096, 4096], "options": {"trials": 20}}
    spec = streams_run.RunSpec.from_dict(old)
    assert spec.shape == (4096, 4096) and spec.option("workload") == "matmul"
    assert spec.option("params") == ""


def _op(shape, workload, seed=0):
    spec = _spec(shape, workload=workload)
    return spec, side_op.load(spec, torch.device("cpu"), torch.Generator().manual_seed(seed))


def test_the_seed_op_draws_x_and_y_from_the_runs_generator_as_before():
    _, op = _op("48x32", "matmul")
    gen = torch.Generator().manual_seed(0)
    x, y = torch.randn(48, 32, generator=gen), torch.randn(32, 48, generator=gen)
    assert torch.equal(op.inputs[0], x) and torch.equal(op.inputs[1], y)
    assert (op.fresh, op.names, op.text) == (2, ("x", "y"), "x @ y")
    assert torch.equal(op.call(), x @ y)


def _workload(op) -> Workload:
    inputs = tuple(t.clone() for t in op.inputs)
    gen = torch.Generator().manual_seed(1)
    return Workload(inputs, _Stream(), _DEFAULT, 0, gen, op.fn, op.fresh, op.names)


@pytest.mark.parametrize("name", ["rms_norm", "cross_entropy", "layer_norm"])
def test_every_ordering_of_a_workload_checks_its_output_per_trial(serial_cuda, name):
    """In issue order nothing races: every trial matches the reference made from that trial's
    own inputs (a reference from stale inputs would not), and only the activation changes."""
    _, op = _op("32x256", name)
    work = _workload(op)
    weights = [t.clone() for t in work.inputs[1:]]
    seen = []
    for variant in VARIANT_FUNCTIONS:
        z, refs, _ = VARIANT_FUNCTIONS[variant](work)
        seen.append(refs[0].clone())
        assert torch.equal(z, op.fn(*refs)), variant
        found = run_trials(variant, work, 3, op.tolerance, lambda *a: None)
        assert (found.mismatches, found.nonfinite_trials, found.diffs) == (0, 0, (0.0,) * 3)
    assert all(not torch.equal(a, b) for a, b in zip(seen, seen[1:], strict=False))
    assert all(torch.equal(a, b) for a, b in zip(weights, work.inputs[1:], strict=True))


def test_a_stale_input_is_a_wrong_result(serial_cuda):
    """What a missing producer wait does on a GPU, made by hand: the op read last trial's x."""
    _, op = _op("32x256", "rms_norm")
    work = _workload(op)
    stale = work.x.clone()
    refs = work.produce()
    z = op.fn(stale, *work.inputs[1:])
    assert not torch.allclose(z, op.fn(*refs), *op.tolerance)


def test_overlap_chains_run_the_workload_in_every_arrangement(serial_cuda):
    spec, op = _op("32x256", "rms_norm")
    loaded = [side_op.ops.load("rms_norm", (32, 256), "float32", "cpu", s, {}) for s in (1, 2)]
    chains = (Chain(loaded[0].inputs, loaded[0].fn), Chain(loaded[1].inputs, loaded[1].fn))
    work = OverlapWork(chains, 3, torch.device("cpu"), 0)
    for arrangement in (work.serial, work.concurrent, work.default_op_between):
        arrangement()
    for chain, made in zip(chains, loaded, strict=True):
        assert torch.equal(chain.out, made.call())
    # default_op_between added each chain's first output element per step
    expected = 3 * (chains[0].probe() + chains[1].probe())
    assert torch.allclose(work.metric, expected)
    assert event_timing(op.fn, op.inputs, _Stream(), 4) == (1.0,) * 4


def test_a_cpu_run_of_a_workload_checks_and_times_its_op():
    spec = build_spec(
        "streams", "64x128", device="cpu", warmup=1, repeat=3, options={"workload": "rms_norm"}
    )
    result = streams_run.run(spec, Context(torch.device("cpu"), lambda *a: None))
    assert result.tolerance_passed and result.workload == "rms_norm"
    assert result.output_shape == (64, 128) and not result.variants
    assert result.steps[0] == "cpu: z = rms_norm(x, w)"
    assert [t.label for t in result.timings] == ["rms_norm (cpu)"]
    key = figures.key_figures(result)
    assert key["workload"] == "rms_norm" and key["op_ms_median"] > 0


def _gpu_result(delay_ms: float, mismatches: int) -> StreamsResult:
    """A CUDA-like result of rms_norm with two broken orderings (values made by hand)."""
    broken = [
        VariantResult(n, "", False, 10, mismatches, (0.5,) * 10, 0, (1.0,) * 10, (1.0,) * 10, None)
        for n in ("missing-producer-wait", "missing-consumer-wait")
    ]
    case = OverlapCase("small kernels", 0, 16, (2.0,) * 5, (1.5,) * 5, 40.0, None, shape=(8, 16))
    timing = Timing(
        "default stream rms_norm", "cuda-events", (0.02,) * 3, (0.03,) * 3, 0.1, 1, 3, True
    )
    return StreamsResult(
        "cuda:0", True, 0.0, True, 1e-5, 1e-5, (64, 128), (), (timing,), "", tuple(broken),
        delay_ms=delay_ms, overlap=(case,), workload="rms_norm",
    )  # fmt: skip


def test_the_report_says_what_the_ops_race_window_gave():
    run = {"spec": {"shape": [64, 128], "dtype": "float32"}}
    rep = report.build(run, _gpu_result(0.0, 0))
    assert rep.headline == (
        "The side-stream rms_norm under missing-producer-wait, an ordering mistake, gave wrong "
        "results in 0/10 trials (max |side − reference| 0.5) · the other ordering mistake, "
        "missing-consumer-wait, gave wrong results in 0/10 trials"
    )
    said = next(n for n in rep.notes if n.startswith("What happened"))
    assert "rms_norm at 64x128 takes 20 µs per call" in said
    assert "no spin: the window is the op's own time" in said
    assert "missing-producer-wait 0/10, missing-consumer-wait 0/10" in said
    assert "as expected of a short op without a spin" in said
    assert "small kernels (8x16) 40 %" in said
    assert any(n.startswith("What to look for (rms_norm)") for n in rep.notes)
    spun = next(n for n in report.build(run, _gpu_result(1.0, 7)).notes if "What happened" in n)
    assert "the spin holds a 1 ms window" in spun and "No race showed" not in spun


def test_a_seed_run_keeps_the_report_it_had():
    result = dataclasses.replace(_gpu_result(1.0, 7), workload="matmul")
    rep = report.build({"spec": {"shape": [64, 128], "dtype": "float32"}}, result)
    assert rep.headline.startswith("The side-stream matmul under missing-producer-wait")
    assert not [n for n in rep.notes if n.startswith(("What happened", "What to look for"))]


def test_the_spin_budget_is_half_the_job_timeout(monkeypatch):
    """check_budget runs before any CUDA work. It read a config function removed in 30c763d,
    so every CUDA streams job raised AttributeError there; no CPU test reached it."""
    from runtime_lab.lab.base import Refused
    from runtime_lab.streams.run.cuda_parts import check_budget

    monkeypatch.setenv("RUNTIME_LAB_JOB_TIMEOUT_S", "10")
    # 9 orderings × trials × 2 spins × 1 ms: 200 trials spin 3.6 s, 400 trials 7.2 s
    check_budget(build_spec("streams", "64x64", device="cuda", options={"trials": 200}))
    with pytest.raises(Refused, match=r"for 7 s, more than 5 s \(half the job timeout\)"):
        check_budget(build_spec("streams", "64x64", device="cuda", options={"trials": 400}))
