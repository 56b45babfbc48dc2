"""Fusion's modes: the callable each one times (eager, torch.compile variants, CUDA graphs)."""

from __future__ import annotations

import torch

from runtime_lab import passes
from runtime_lab.lab import compile_tools as ct
from runtime_lab.lab import training
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
    """torch.compile of the workload for a mode, kept across jobs (see _COMPILED)."""
    key = (mode, spec.option("fullgraph"), spec.option("dynamic"), spec.option("workload"))
    key += (passes.of(spec) == "bwd",)  # its backward keeps no donated buffers (training.py)
    if fresh or key not in _COMPILED:
        _COMPILED[key] = compile_copy(mode, spec)
    return _COMPILED[key]


def compile_copy(mode: str, spec: RunSpec, dynamic: str | None = None, tag: str = ""):
    """A new torch.compile of the workload for a mode, on its own copy of the code object:
    Dynamo caches (and counts toward recompile_limit) per code object, so modes, and a sweep's
    functions, must not share one. `dynamic` overrides the spec's option (auto, false, true)."""
    workload = spec.option("workload")
    name = f"{workload.replace('-', '_')}_{mode.replace('-', '_')}{tag}"
    fn = ct.own_copy(op_module(workload).fn, name)
    choice = dynamic or spec.option("dynamic")
    kwargs = {
        "fullgraph": spec.option("fullgraph"),
        "dynamic": {"auto": None, "false": False, "true": True}[choice],
    }
    if mode == "dynamo-eager":
        return torch.compile(fn, backend="eager", **kwargs)
    inductor_mode = INDUCTOR_MODES["inductor" if mode == "cuda-graph-inductor" else mode]
    return torch.compile(fn, backend="inductor", mode=inductor_mode, **kwargs)


def compiles(mode: str) -> bool:
    """Whether a mode's callable goes through torch.compile."""
    return mode == "dynamo-eager" or mode == "cuda-graph-inductor" or mode in INDUCTOR_MODES


def build(mode: str, spec: RunSpec, inputs: tuple, fresh: bool = False):
    """The callable for a mode over the workload's inputs, for the spec's pass (compiling
    modes compile on their first call: with a backward, AOTAutograd's forward and backward
    graphs both, so the first call is the joint graph's compile)."""
    module, step = op_module(spec.option("workload")), passes.of(spec)
    if passes.has_backward(step) and mode in GRAPH_MODES:
        raise ValueError(
            f"{mode} captures the forward alone: a CUDA graph of the backward is not built; "
            "allowed pass: fwd"
        )
    if mode == "cuda-graph":
        return cuda_graph(module.fn, inputs)
    if mode == "eager":
        return training.step(module.fn, inputs, step, module)
    compiled = _compiled("inductor" if mode in GRAPH_MODES else mode, spec, fresh)
    if mode == "cuda-graph-inductor":
        return over(mode, compiled, inputs)
    return training.step(compiled, inputs, step, module)


def over_pass(mode: str, compiled, inputs: tuple, spec: RunSpec):
    """over() for the spec's pass: with a backward, the training step over the compiled
    function (the sweep times what the modes timed)."""
    step = passes.of(spec)
    if passes.has_backward(step) and mode not in GRAPH_MODES:
        return training.step(compiled, inputs, step, op_module(spec.option("workload")))
    return over(mode, compiled, inputs)


def over(mode: str, compiled, inputs: tuple):
    """A compiled function's callable for a mode: a CUDA-graph replay of it, or a plain call."""
    if mode == "cuda-graph-inductor":
        return cuda_graph(compiled, inputs)
    return lambda: compiled(*inputs)


def cuda_graph(fn, inputs: tuple):
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
