"""The side stream's op: the seed's x @ y, or a catalog workload's function on its inputs."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass

import torch

from runtime_lab.lab.base import TOLERANCES, torch_dtype
from runtime_lab.spec import RunSpec
from runtime_lab.streams.info import SEED_OP
from runtime_lab.streams.run.variants import matmul
from runtime_lab.workloads import ops
from runtime_lab.workloads.fit import spec_params


def operand_shapes(
    shape: tuple[int, ...],
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """x has the spec's shape; y swaps its last two dims so x @ y is defined (1-D: a dot)."""
    if len(shape) == 1:
        return shape, shape, ()
    y_shape = (*shape[:-2], shape[-1], shape[-2])
    return shape, y_shape, (*shape[:-1], shape[-2])


@dataclass(frozen=True)
class SideOp:
    """What the side stream runs: z = fn(*inputs). Each trial rewrites the first `fresh`
    inputs (the seed's x and y; a workload's first input, its activation: weights stay)."""

    name: str
    inputs: tuple
    fn: Callable
    fresh: int
    tolerance: tuple[float, float]  # (rtol, atol) against the default-stream reference
    names: tuple[str, ...]  # the inputs' names (fn's parameters), for CSAN's reports

    @property
    def seed(self) -> bool:
        return self.name == SEED_OP

    @property
    def text(self) -> str:
        """The op as the steps, labels and notes name it."""
        return "x @ y" if self.seed else self.name

    def call(self) -> torch.Tensor:
        return self.fn(*self.inputs)


def load(spec: RunSpec, device, generator: torch.Generator) -> SideOp:
    """The spec's side-stream op on device. The seed's x and y come from `generator` (seeded
    with the spec's seed) as they always did; a workload's inputs from ops.load."""
    name, dtype = spec.option("workload"), spec.dtype
    if name == SEED_OP:
        x_shape, y_shape, _ = operand_shapes(spec.shape)
        x = torch.randn(x_shape, generator=generator, device=device, dtype=torch_dtype(dtype))
        y = torch.randn(y_shape, generator=generator, device=device, dtype=torch_dtype(dtype))
        return SideOp(name, (x, y), matmul, 2, TOLERANCES[dtype], ("x", "y"))
    work = ops.load(name, spec.shape, dtype, device, spec.seed, spec_params(spec))
    fresh = int(work.inputs[0].is_floating_point())  # integer inputs (class targets) stay
    names = tuple(inspect.signature(work.fn).parameters)[: len(work.inputs)]
    return SideOp(name, work.inputs, work.fn, fresh, ops.tolerance(work, dtype), names)


def footprint(spec: RunSpec) -> tuple[int, int, int]:
    """(input, output, intermediate) bytes of one call of the spec's op, on meta tensors."""
    name = spec.option("workload")
    if name == SEED_OP:
        x, y, out = (math.prod(s) for s in operand_shapes(spec.shape))
        size = torch_dtype(spec.dtype).itemsize
        return (x + y) * size, out * size, 0
    call = ops.meta_bytes(name, spec.shape, spec.dtype, spec_params(spec))
    return call.inputs, call.output, call.written
