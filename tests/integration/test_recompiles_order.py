"""Recompiles: the steady-state timings run with no profiler, memory history or sanitizer before."""

from __future__ import annotations

import torch
from callorder import TIMED, CallOrder

from runtime_lab.lab.base import Context
from runtime_lab.recompiles.run import experiment as recompiles_run
from runtime_lab.recompiles.run import steady
from runtime_lab.spec import build_spec

OPTIONS = {
    "shapes": "16x16,32x32,16x16",
    "modes": "dynamic=False,dynamic=True",
    "backend": "eager",
    "bucket": "off",
    "graph_break": "item-branch",
}


def test_steady_state_is_timed_before_any_tool(monkeypatch):
    """On the CPU (Dynamo with the eager backend); tests/gpu/test_tool_order_gpu.py on CUDA."""
    order = CallOrder(monkeypatch)
    order.watch_tools()
    order.wrap(steady, "measure", TIMED + "steady")
    spec = build_spec("recompiles", "8", device="cpu", warmup=1, repeat=3, options=OPTIONS)
    ctx = Context(torch.device("cpu"), lambda *a: None)
    result = recompiles_run.run(spec, ctx)
    order.assert_timed_first()
    # per mode its two distinct shapes, then eager's two
    assert order.timed() == [TIMED + "steady"] * 6
    assert all(c.steady_ms and c.eager_ms for m in result.modes for c in m.calls)
