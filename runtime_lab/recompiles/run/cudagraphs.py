"""The reduce-overhead what-if in the worker: cudagraph trees watched per call, the pool's size."""

from __future__ import annotations

import functools
from dataclasses import replace

import torch
import torch._dynamo.utils as dynamo_utils
from torch._dynamo.utils import counters

from runtime_lab.recompiles import cudagraph_calls as cg
from runtime_lab.recompiles.result import CallRecord
from runtime_lab.recompiles.run.calls import short

MODE = cg.MODE
# the tree manager's three ways to run a function (torch/_inductor/cudagraph_trees.py): a warm-up
# outside a graph, a new recording, a replay of a recorded node; private, so each is optional
TAPPED = {"run_eager": "warmup", "record_function": "record", "execute_node": "replay"}
UNAVAILABLE = "not available in this torch build"


def _graph_id(manager) -> int | None:
    node = getattr(manager, "current_node", None)
    graph = getattr(getattr(node, "id", None), "id", None)
    return graph if isinstance(graph, int) and graph >= 0 else None  # warm-up nodes count down


class Watch:
    """While inside, the tree manager's run_eager / record_function / execute_node also note
    themselves (the class's methods wrapped, put back on exit); per call, before() then after()
    turn what was noted into the call's CUDA-graph state."""

    def __init__(self) -> None:
        self.taps: list[cg.Tap] = []
        self.notes: list[str] = []
        self.frame_skips: dict[str, str] = {}  # compile id → why its compile skipped cudagraphs
        self._saved: dict[str, object] = {}
        self._cls = None
        self._mark, self._skips, self._seen = 0, 0, set()

    def __enter__(self) -> Watch:
        try:
            from torch._inductor.cudagraph_trees import CUDAGraphTreeManager
        except Exception as exc:
            self.notes.append(f"cudagraph trees {UNAVAILABLE} ({short(exc)})")
            return self
        self._cls = CUDAGraphTreeManager
        for name, kind in TAPPED.items():
            original = getattr(CUDAGraphTreeManager, name, None)
            if not callable(original):
                self.notes.append(f"CUDAGraphTreeManager.{name} {UNAVAILABLE}: no {kind} seen")
                continue
            self._saved[name] = original
            setattr(CUDAGraphTreeManager, name, self._tap(original, kind))
        return self

    def __exit__(self, *exc) -> None:
        for name, original in self._saved.items():
            setattr(self._cls, name, original)
        self._saved.clear()

    def _tap(self, original, kind: str):
        taps = self.taps

        @functools.wraps(original)
        def tapped(manager, *args, **kwargs):
            try:
                return original(manager, *args, **kwargs)
            finally:  # after: the node it ran is then the manager's current node
                taps.append((kind, _graph_id(manager)))

        return tapped

    def before(self) -> None:
        self._mark = len(self.taps)
        self._skips = counters["inductor"].get("cudagraph_skips", 0)
        self._seen = {id(m) for m in dynamo_utils.get_compilation_metrics()}

    def after(self, record: CallRecord) -> CallRecord:
        new = [m for m in dynamo_utils.get_compilation_metrics() if id(m) not in self._seen]
        reasons = [getattr(m, "cudagraph_skip_reason", None) for m in new]
        reason = next((str(r) for r in reasons if r), None)
        if reason and record.compile_id:
            self.frame_skips[record.compile_id] = reason
        state, graph, why = cg.outcome(
            self.taps[self._mark :],
            counters["inductor"].get("cudagraph_skips", 0) - self._skips,
            reason,
            self.frame_skips.get(record.compile_id or ""),
            failed=record.event == "failed",
        )
        return replace(record, cudagraph=state, cudagraph_id=graph, cudagraph_reason=why)


def pool(device: torch.device) -> tuple[int | None, str | None]:
    """Bytes of the cudagraph trees' private pool on the device (its segments in the memory
    snapshot), or None and why not."""
    try:
        from torch._inductor import cudagraph_trees as trees

        index = device.index if device.index is not None else torch.cuda.current_device()
        manager = getattr(trees.get_container(index), "tree_manager", None)
        if manager is None:
            return None, "no CUDA-graph tree was made: no call ran under cudagraph trees"
        handle = manager.cuda_graphs_thread_pool
        return cg.pool_bytes(torch.cuda.memory_snapshot(), handle), None
    except Exception as exc:
        return None, f"the CUDA-graph pool's size is {UNAVAILABLE} ({short(exc)})"


def release() -> None:
    """Free the trees and their pool (newer torch does it in reset(), older may not)."""
    try:
        from torch._inductor.cudagraph_trees import reset_cudagraph_trees

        reset_cudagraph_trees()
    except Exception:  # nothing held, or a torch without it: the next reset() is enough
        pass
