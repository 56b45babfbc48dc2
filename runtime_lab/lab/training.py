"""A workload's training step: the callable each pass times (fwd, bwd, fwd_bwd) and its gradients."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext

import torch
import torch._functorch.config as functorch_config
from torch.profiler import record_function
from torch.utils._pytree import tree_leaves

from runtime_lab.passes import has_backward

# the profiler ranges around each pass of a step: lab/profiling.py splits kernels by them
FORWARD_RANGE = "runtime_lab.forward"
BACKWARD_RANGE = "runtime_lab.backward"
GRAD_SEED = 0  # the fixed grad_output every mode and the float64 reference share


class NotDifferentiable(ValueError):
    """The workload has nothing a backward could differentiate: said in one line."""


def grad_indices(module, inputs: tuple) -> tuple[int, ...]:
    """Indices of the inputs a step differentiates: the op module's GRAD_INPUTS (its
    parameters and data that need gradients), else every floating tensor. Integer inputs
    (class targets) never get one."""
    floating = [
        i for i, t in enumerate(inputs) if isinstance(t, torch.Tensor) and t.is_floating_point()
    ]
    declared = getattr(module, "GRAD_INPUTS", None)
    chosen = (
        tuple(i for i in declared if i in floating) if declared is not None else tuple(floating)
    )
    if not chosen:
        raise NotDifferentiable(
            "the workload has no floating inputs to differentiate; allowed pass: fwd"
        )
    return chosen


def leaves(inputs: tuple, indices: tuple[int, ...]) -> tuple:
    """The inputs with those at `indices` as leaves that require grad (sharing their storage:
    each mode gets its own leaves, and so its own .grad, at no memory cost). An input that is
    such a leaf already is kept as it is (with its Dynamo marks: require_grad)."""
    return tuple(
        t.detach().requires_grad_(True) if i in indices and not _leaf(t) else t
        for i, t in enumerate(inputs)
    )


def _leaf(t) -> bool:
    return isinstance(t, torch.Tensor) and t.is_leaf and t.requires_grad


def require_grad(inputs: tuple, indices: tuple[int, ...]) -> tuple:
    """The same tensors, those at `indices` set to require grad in place: for fresh inputs that
    carry Dynamo's marks (mark_dynamic sets them on the tensor object, which detach() drops)."""
    for i in indices:
        inputs[i].requires_grad_(True)
    return inputs


def differentiable_outputs(out) -> list[torch.Tensor]:
    """The output's tensors a backward starts from (those that carry a graph)."""
    found = [t for t in tree_leaves(out) if isinstance(t, torch.Tensor) and t.requires_grad]
    if not found:
        raise NotDifferentiable(
            "the workload's output does not depend on any input that requires grad; "
            "allowed pass: fwd"
        )
    return found


def grad_output(out: torch.Tensor) -> torch.Tensor:
    """A fixed upstream gradient for `out`, the same for every mode: 1 for a scalar (a loss),
    else a seeded normal drawn in float32 and cast to the output's dtype (as a loss's
    gradient would arrive)."""
    if out.numel() == 1:
        return torch.ones_like(out)
    generator = torch.Generator(device=out.device).manual_seed(GRAD_SEED)
    drawn = torch.randn(out.shape, generator=generator, device=out.device, dtype=torch.float32)
    return drawn.to(out.dtype)


def _retainable():
    """bwd's first call compiles a forward and backward that can run with retain_graph=True:
    Inductor's donated buffers (a backward freeing saved tensors it reads) refuse a retained
    graph, so they are off for those compiles (the backward compiles lazily, at its first
    call), as tritonbench turns them off for --mode bwd."""
    return functorch_config.patch(donated_buffer=False)


def _marked(name: str):
    """A profiler range around a pass, only while a profiler records (timed calls skip it)."""
    return record_function(name) if torch.autograd._profiler_enabled() else nullcontext()


class Step:
    """The callable a pass times, over its own leaves. The first call runs the forward (and
    compiles, in a compiled mode) and fixes grad_output; `bwd` then keeps that forward's graph
    (retain_graph=True) and times the backward alone, as tritonbench's --mode bwd does.
    Gradients are set to None before each call (as do_bench's grad_to_none): every backward
    allocates fresh gradients instead of accumulating, so memory is the same each call.
    A call returns the forward's output."""

    def __init__(self, forward: Callable, inputs: tuple, indices: tuple[int, ...], step: str):
        self.forward, self.step, self.indices = forward, step, indices
        self.inputs = leaves(inputs, indices)
        self.out = None  # bwd: the retained forward's output
        self.grads_out: list[torch.Tensor] | None = None

    def __call__(self):
        if self.step == "bwd" and self.out is None:  # its one forward, and the first backward
            with _retainable():
                return self._call()
        return self._call()

    def _call(self):
        for i in self.indices:
            self.inputs[i].grad = None
        # bwd runs its forward once: that graph is kept for every backward
        out = self.run_forward() if self.step == "fwd_bwd" or self.out is None else self.out
        self.run_backward(out)
        return out

    def run_forward(self):
        """The forward over the step's leaves: its output holds the graph (and what the
        backward saved) until run_backward."""
        with _marked(FORWARD_RANGE):
            return self.forward(*self.inputs)

    def run_backward(self, out) -> None:
        """The backward from `out` with the fixed grad_output (made at the first call); bwd
        keeps the graph for the next call."""
        outs = differentiable_outputs(out)
        if self.grads_out is None:
            self.grads_out = [grad_output(t) for t in outs]
        retain = self.step == "bwd"
        if retain:
            self.out = out
        with _marked(BACKWARD_RANGE):
            torch.autograd.backward(outs, self.grads_out, retain_graph=retain)

    def grads(self) -> tuple[torch.Tensor | None, ...]:
        """The gradients the last call left, one per differentiated input."""
        return tuple(self.inputs[i].grad for i in self.indices)


def step(forward: Callable, inputs: tuple, pass_: str, module=None) -> Callable[[], object]:
    """The callable a pass times: fwd is forward(*inputs) as every run before the option;
    bwd and fwd_bwd are a Step over leaves that require grad (module: the workload's op
    module, which may declare GRAD_INPUTS). Raises NotDifferentiable in one line."""
    if not has_backward(pass_):
        return lambda: forward(*inputs)
    return Step(forward, inputs, grad_indices(module, inputs), pass_)


def one_step(forward: Callable, module=None) -> Callable:
    """forward as a step-peak reading calls it: f(*inputs) runs one training step from fresh
    leaves (no .grad held before it; grad_output, the gradients and the activations made
    inside it) and returns the output. The allocator's step peak and the catalog's clean peak
    both read this callable, so "step peak" means one thing wherever it is shown."""
    return lambda *inputs: step(forward, inputs, "fwd_bwd", module)()


def reference_grads(fn: Callable, inputs: tuple, indices: tuple[int, ...], grads_out) -> tuple:
    """The float64 answer: fn over float64 copies of the inputs (floating ones), backward
    from the same grad_output the modes had, rounded to their dtype first, then float64."""
    upcast = tuple(
        t.detach().double() if isinstance(t, torch.Tensor) and t.is_floating_point() else t
        for t in inputs
    )
    made = leaves(upcast, indices)
    outs = differentiable_outputs(fn(*made))
    torch.autograd.backward(outs, [g.double() for g in grads_out])
    return tuple(made[i].grad for i in indices)
