"""On CUDA, every experiment's timed phases run before its first tool session (profiler, memory
history): the real jobs on the GPU, in this process (their CPU checks are in tests/unit and
tests/integration)."""

from __future__ import annotations

import pytest
import torch
from callorder import TIMED, TOOL, CallOrder

from runtime_lab.allocator.run import experiment as allocator_run
from runtime_lab.allocator.run import scenarios as sc
from runtime_lab.lab.base import Context
from runtime_lab.recompiles.run import experiment as recompiles_run
from runtime_lab.recompiles.run import steady
from runtime_lab.spec import build_spec
from runtime_lab.streams.run import cuda_parts
from runtime_lab.streams.run import experiment as streams_run

pytestmark = pytest.mark.gpu


def _context() -> Context:
    return Context(torch.device("cuda:0"), lambda *a: None)


def test_cuda_run_times_everything_before_the_profiler(monkeypatch, data_dir):
    """The real job on the GPU, default overlap sizes: harness, trials, overlap, host blocking
    and event timing all before the first profiler session (its warm-up included)."""
    order = CallOrder(monkeypatch)
    order.watch_tools()
    order.wrap(streams_run, "measure", TIMED + "harness")
    order.wrap(cuda_parts, "run_trials", TIMED + "variant")
    order.wrap(cuda_parts, "time_overlap", TIMED + "overlap")
    order.wrap(cuda_parts, "event_timing", TIMED + "event timing")
    order.wrap(cuda_parts, "host_blocking", TIMED + "host blocking", when=lambda c, d, *a: d > 0)
    options = {"variant": "correct,missing-producer-wait", "trials": 4}
    spec = build_spec("streams", "4096x4096", device="cuda", repeat=10, options=options)
    result = streams_run.run(spec, _context())
    order.assert_timed_first()
    assert order.timed().count(TIMED + "overlap") == 3
    assert TOOL + "profiler" in order.log
    assert len(result.overlap) == 3 and result.trace_file


def test_timed_rounds_come_before_memory_history_on_cuda(monkeypatch):
    order = CallOrder(monkeypatch)
    order.watch_tools()
    order.wrap(sc, "_round", TIMED + "empty-cache round")
    options = {"shapes": "1024x1024,4096x4096,2048x2048", "scenarios": "sequence,empty-cache"}
    options |= {"rounds": 2, "compare_side": 128}
    spec = build_spec("allocator", "8", device="cuda", options=options)
    result = allocator_run.run(spec, _context())
    order.assert_timed_first()
    assert order.log.count(TOOL + "memory history") == 2  # sequence, empty-cache
    assert result.errors == () and result.empty_cache.timed_before_history
    assert min(result.empty_cache.every_round_ms) > 0 and result.empty_cache.call_ms
    assert result.step_ms_under_history  # the per-step times are taken while it records
    assert {s.scenario for s in result.snapshots} == {"sequence", "empty-cache"}


def test_recompiles_steady_state_is_timed_before_any_tool(monkeypatch):
    order = CallOrder(monkeypatch)
    order.watch_tools()
    order.wrap(steady, "measure", TIMED + "steady")
    options = {"shapes": "16x16,32x32,16x16", "modes": "dynamic=False,dynamic=True"}
    options |= {"backend": "eager", "bucket": "off", "graph_break": "item-branch"}
    spec = build_spec("recompiles", "8", device="cuda", warmup=1, repeat=3, options=options)
    result = recompiles_run.run(spec, _context())
    order.assert_timed_first()
    # per mode its two distinct shapes, then eager's two
    assert order.timed() == [TIMED + "steady"] * 6
    assert all(c.steady_ms and c.eager_ms for m in result.modes for c in m.calls)
