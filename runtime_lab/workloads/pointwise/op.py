"""pointwise, the worker's half: two same-shaped inputs and the four-op function."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F


def inputs(shape, params, dtype, device, generator):
    x = torch.randn(shape, generator=generator, device=device, dtype=dtype)
    y = torch.randn(shape, generator=generator, device=device, dtype=dtype)
    return x, y


def pointwise(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return F.silu(x + y) * (x - y)


fn = pointwise  # the name compile logs and recompile reasons show


def flops(shape, params, tensors) -> int:
    return 7 * math.prod(shape)  # add, sub, mul; silu as x·σ(x): neg, exp, add, div


def reduction_lengths(shape, params) -> tuple[int, ...]:
    return ()  # elementwise: no reduction
