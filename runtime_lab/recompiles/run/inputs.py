"""Recompiles' workload on the worker: its inputs per call, and which axes carry a marked dim."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import torch

from runtime_lab import marks, passes
from runtime_lab.lab import training
from runtime_lab.passes import has_backward
from runtime_lab.spec import RunSpec
from runtime_lab.workloads import ops
from runtime_lab.workloads.fit import params_of, spec_params
from runtime_lab.workloads.registry import get, op_module

Mark = Callable | None  # torch._dynamo.mark_dynamic and its kind, or None: nothing marked


def carriers(name: str, shape, params: dict, dtype: str, dims) -> tuple[tuple[int, ...], ...]:
    """Per input, the axes that carry one of the named dims `dims` (indices into shape).

    The rule: an axis carries dim d when its size is d's size and it follows d: built again
    with d doubled (on meta tensors), the axis is exactly the doubled size. An axis of another
    dim of equal size (hidden = tokens = 1024) does not follow; one derived from d (d // 2, a
    product) is not d's size: neither is marked. Doubling keeps what ops require (even
    head_dim, hidden divisible by heads)."""
    base = ops.meta_inputs(name, shape, dtype, params)
    found = [set() for _ in base]
    for d in dims:
        moved = list(shape)
        moved[d] *= 2
        other = ops.meta_inputs(name, moved, dtype, params)
        for i, (a, b) in enumerate(zip(base, other, strict=True)):
            if not isinstance(a, torch.Tensor) or a.dim() != b.dim():
                continue
            found[i] |= {
                axis
                for axis in range(a.dim())
                if a.shape[axis] == shape[d] and b.shape[axis] == moved[d]
            }
    return tuple(tuple(sorted(axes)) for axes in found)


@dataclass(frozen=True)
class Work:
    """The run's workload: its fn, parameters, argument names and the axes its marks go on."""

    name: str
    dims: tuple[str, ...]  # its named dims, in shape order
    params: dict
    fn: Callable
    names: tuple[str, ...]  # fn's parameters: the frame's locals Dynamo's guards read
    axes: tuple[tuple[int, ...], ...]  # per input, the axes carrying a marked dim
    # per input, the axes the spec's mark_dynamic option marks in every mode; () per input: none
    forced: tuple[tuple[int, ...], ...] = ()
    forced_dims: tuple[int, ...] = ()  # the workload dims those axes carry
    step: str = "fwd"  # the spec's pass: with a backward, each call is a training step
    # per workload dim, the input axes that carry it as marks ("x:0,y:0"): the report's names
    dim_axes: tuple[str, ...] = ()

    def runner(self, fn: Callable, made: tuple) -> Callable[[], object]:
        """What one call runs over inputs from `inputs`: fn(*made), or with a backward pass a
        training step of fn (lab/training.py: forward and backward, each compiled)."""
        return training.step(fn, made, self.step, op_module(self.name))

    def inputs(self, shape, dtype: str, seed: int, device, mark: Mark = None) -> tuple:
        """The call's inputs (seeded as the fusion experiment seeds them), marked where asked:
        the mode's marks, and the option's with torch._dynamo.mark_dynamic."""
        made = ops.load(self.name, shape, dtype, device, seed, self.params).inputs
        if has_backward(self.step):  # before the marks: both stay on these tensor objects
            made = training.require_grad(made, training.grad_indices(op_module(self.name), made))
        for how, axes_of in ((mark, self.axes), (torch._dynamo.mark_dynamic, self.forced)):
            if how is None:
                continue
            for tensor, axes in zip(made, axes_of, strict=False):
                for axis in axes:
                    how(tensor, axis)
        return made

    def applied(self) -> str:
        """The option's marks as applied: 'x:0,y:0' (every input axis carrying the dim)."""
        pairs = [(n, a) for n, axes in zip(self.names, self.forced, strict=False) for a in axes]
        return marks.text(tuple(pairs))

    def locals(self, inputs: tuple) -> dict:
        return dict(zip(self.names, inputs, strict=False))

    def marked(self) -> str:
        """Which inputs' axes are marked, in words: 'x dim 0' (pointwise: 'x dims 0, 1; y …')."""
        parts = []
        for name, axes in zip(self.names, self.axes, strict=False):
            if axes:
                word = "dim" if len(axes) == 1 else "dims"
                parts.append(f"{name} {word} {', '.join(map(str, axes))}")
        return "; ".join(parts) or "no input axis"

    def moved_bytes(self, shape, dtype: str) -> int:
        """Bytes one call reads and writes at least: its inputs and its output (meta)."""
        return _moved(self.name, tuple(shape), tuple(sorted(self.params.items())), dtype)


@cache
def _moved(name: str, shape: tuple, params: tuple, dtype: str) -> int:
    return ops.meta_bytes(name, shape, dtype, dict(params)).moved


def work_of(spec: RunSpec, dims: tuple[int, ...], shape) -> Work:
    """The spec's workload, its marks' axes found at `shape` (the sequence's first)."""
    name = spec.option("workload")
    info = get(name)
    params = ops.merged_params(name, spec_params(spec))
    fn = op_module(name).fn
    code = fn.__code__
    names = tuple(code.co_varnames[: code.co_argcount])
    axes = carriers(name, shape, params, spec.dtype, dims)
    per_dim = [carriers(name, shape, params, spec.dtype, [d]) for d in range(len(shape))]
    forced, forced_dims = forced_axes(
        spec.option("mark_dynamic"), name, names, shape, params, spec.dtype, per_dim
    )
    step = passes.of(spec)
    by_dim = _dim_axes(names, per_dim)
    return Work(name, info.dims, params, fn, names, axes, forced, forced_dims, step, by_dim)


def _dim_axes(names, per_dim) -> tuple[str, ...]:
    """Per workload dim, the input axes carrying it as marks: ('x:0,y:0', 'x:1,y:1')."""
    return tuple(
        marks.text(tuple((n, a) for n, axes in zip(names, dim, strict=False) for a in axes))
        for dim in per_dim
    )


def forced_axes(given: str, name: str, names, shape, params, dtype, per_dim):
    """Per input, the axes to mark for the option's input:axis pairs, and the workload dims they
    carry: each pair's axis and every axis of every input that carries the same dim (marking
    x's but not y's makes x + y a constraint violation: Dynamo specializes the unmarked one).
    per_dim: per workload dim, per input, the axes that carry it (carriers of that dim alone).
    ValueError, one line, for an input or axis the workload does not have."""
    wanted = marks.parse(given)
    if not wanted:
        return (), ()
    base = ops.meta_inputs(name, shape, dtype, params)
    found: list[set[int]] = [set() for _ in names]
    dims: set[int] = set()
    for input_name, axis in wanted:
        i = names.index(input_name) if input_name in names else -1
        tensor = base[i] if 0 <= i < len(base) else None
        if not isinstance(tensor, torch.Tensor) or axis >= tensor.dim():
            takes = ", ".join(
                f"{n} ({t.dim()} dims)"
                for n, t in zip(names, base, strict=False)
                if isinstance(t, torch.Tensor)
            )
            raise ValueError(
                f"mark_dynamic: {input_name}:{axis} is not an axis of an input of {name}; "
                f"its inputs: {takes}"
            )
        found[i].add(axis)
        for d, axes in enumerate(per_dim):
            if axis in axes[i]:
                dims.add(d)
                for j, carried in enumerate(axes[: len(names)]):
                    found[j] |= set(carried)
    return tuple(tuple(sorted(a)) for a in found), tuple(sorted(dims))


def held_bytes(name: str, shape, dtype: str, params_text: str) -> int:
    """Bytes one eager call holds at most: its inputs and every tensor eager writes (meta)."""
    params = params_of(get(name), params_text)
    return ops.meta_bytes(name, shape, dtype, params).held
