"""Fusion's modes: the callable each one times (eager, torch.compile variants, CUDA graphs)."""

from __future__ import annotations

import torch

from runtime_lab.lab import compile_tools as ct
from runtime_lab.spec import RunSpec
from runtime_lab.workloads.registry import op_module

LOOP_CALLS = 200  # back-to-back calls: launch overhead shows, as in a real loop
GRAPH_MODES = ("cuda-graph", "cuda-graph-inductor")  # manual torch.cuda.CUDAGraph captures
INDUCTOR_MODES = {
    "inductor": None,
    "inductor-reduce-overhead": "reduce-overhead",
    "inductor-max-autotune-no-cudagraphs": "max-autotune-no-cudagraphs",
}


# Compiled wrappers kept across jobs, so a re-run of a compiled mode is a warm-process call.
_COMPILED: dict[tuple, object] = {}


def _compiled(mode: str, spec: RunSpec, fresh: bool):
    """torch.compile of the workload for a mode. Each mode compiles its own copy of the code
    object: Dynamo caches (and counts toward recompile_limit) per code object, so modes must
    not share one."""
    workload = spec.option("workload")
    key = (mode, spec.option("fullgraph"), spec.option("dynamic"), workload)
    if fresh or key not in _COMPILED:
        work = op_module(workload).fn
        name = f"{workload.replace('-', '_')}_{mode.replace('-', '_')}"
        fn = ct.own_copy(work, name)
        dynamic = {"auto": None, "false": False, "true": True}[spec.option("dynamic")]
        kwargs = {"fullgraph": spec.option("fullgraph"), "dynamic": dynamic}
        if mode == "dynamo-eager":
            _COMPILED[key] = torch.compile(fn, backend="eager", **kwargs)
        else:
            _COMPILED[key] = torch.compile(
                fn, backend="inductor", mode=INDUCTOR_MODES[mode], **kwargs
            )
    return _COMPILED[key]


def build(mode: str, spec: RunSpec, inputs: tuple, fresh: bool = False):
    """The callable for a mode over the workload's inputs (compiling modes compile on their
    first call)."""
    work = op_module(spec.option("workload")).fn
    if mode == "eager":
        return lambda: work(*inputs)
    if mode == "cuda-graph":
        return _cuda_graph(work, inputs)
    if mode == "cuda-graph-inductor":
        return _cuda_graph(_compiled("inductor", spec, fresh), inputs)
    compiled = _compiled(mode, spec, fresh)
    return lambda: compiled(*inputs)


def _cuda_graph(fn, inputs: tuple):
    """Capture fn(*inputs) once (eager: its kernels; compiled: the fused ones); a call is a
    replay. The warm-up also compiles a compiled fn, so nothing compiles during capture."""
    device = next(t.device for t in inputs if isinstance(t, torch.Tensor))
    side = torch.cuda.Stream(device)
    side.wait_stream(torch.cuda.current_stream(device))
    with torch.cuda.stream(side):  # warm up off the capture stream, as the CUDA graph docs do
        for _ in range(3):
            fn(*inputs)
    torch.cuda.current_stream(device).wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = fn(*inputs)

    def replay():
        graph.replay()
        return static_out

    return replay
