"""Allocator: empty_cache's timed rounds run before the job first records memory history."""

from __future__ import annotations

import pytest
import torch
from callorder import TIMED, TOOL, CallOrder

from runtime_lab.allocator.run import experiment as allocator_run
from runtime_lab.allocator.run import scenarios as sc
from runtime_lab.allocator.run.probe import Probe
from runtime_lab.lab.base import Context
from runtime_lab.spec import build_spec


def _spec(device: str, shapes: str, scenarios="sequence,empty-cache"):
    options = {"shapes": shapes, "scenarios": scenarios, "rounds": 2, "compare_side": 128}
    return build_spec("allocator", "8", device=device, options=options)


def _watch(order: CallOrder) -> None:
    order.watch_tools()
    order.wrap(sc, "_round", TIMED + "empty-cache round")


@pytest.mark.parametrize("scenarios", ["sequence,empty-cache", "empty-cache,sequence"])
def test_timed_rounds_come_before_any_recording_on_cpu(monkeypatch, scenarios):
    """On CPU Probe.recording records nothing, so it stands in for memory history here; the
    empty-cache scenario (CUDA-only) is let run: its empty_cache() calls are no-ops on CPU."""
    order = CallOrder(monkeypatch)
    _watch(order)
    order.wrap(Probe, "recording", TOOL + "recording")
    monkeypatch.setattr(allocator_run, "CUDA_ONLY", ("side-stream", "cudagraphs"))
    spec = _spec("cpu", "64x64,128x128", scenarios)
    result = allocator_run.run(spec, Context(torch.device("cpu"), lambda *a: None))
    order.assert_timed_first()
    # warm-up, then per round never, every, refill: all of them before the first recording
    assert order.timed() == [TIMED + "empty-cache round"] * 7
    assert order.log.count(TOOL + "recording") == 2
    e = result.empty_cache
    assert e.timed_before_history and len(e.never_round_ms) == len(e.every_round_ms) == 2
    assert [s.event for s in result.steps if s.scenario == "empty-cache"][:2] == [
        "computed",
        "after del",
    ]
    assert not result.step_ms_under_history  # no memory history on CPU
    assert result.errors == ()


def test_failed_timing_is_the_scenario_error_and_the_rest_runs(monkeypatch):
    def fail(*a):
        raise RuntimeError("out of memory (made up)")

    monkeypatch.setattr(allocator_run, "CUDA_ONLY", ("side-stream", "cudagraphs"))
    monkeypatch.setattr(sc, "time_empty_cache", fail)
    result = allocator_run.run(
        _spec("cpu", "64x64", "empty-cache,sequence"),
        Context(torch.device("cpu"), lambda *a: None),
    )
    assert [(e.scenario, e.error) for e in result.errors] == [
        ("empty-cache", "RuntimeError: out of memory (made up)")
    ]
    assert result.empty_cache is None
    assert {s.scenario for s in result.steps} == {"sequence"}
