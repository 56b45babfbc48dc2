"""Recompiles' workload on the worker: its inputs per call, and which axes carry a marked dim."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import torch

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

    def inputs(self, shape, dtype: str, seed: int, device, mark: Mark = None) -> tuple:
        """The call's inputs (seeded as the fusion experiment seeds them), marked where asked."""
        made = ops.load(self.name, shape, dtype, device, seed, self.params).inputs
        if mark is not None:
            for tensor, axes in zip(made, self.axes, strict=False):
                for axis in axes:
                    mark(tensor, axis)
        return made

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
    return Work(name, info.dims, params, fn, names, axes)


def held_bytes(name: str, shape, dtype: str, params_text: str) -> int:
    """Bytes one eager call holds at most: its inputs and every tensor eager writes (meta)."""
    params = params_of(get(name), params_text)
    return ops.meta_bytes(name, shape, dtype, params).held
