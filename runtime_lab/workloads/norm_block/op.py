"""norm_block, the worker's half: the block with the catalog's traceable RMSNorm."""

from __future__ import annotations

import math

import torch

from runtime_lab.workloads.rms_norm.op import rms_norm


def inputs(shape, params, dtype, device, generator):
    tokens, hidden = shape
    x = torch.randn(tokens, hidden, generator=generator, device=device, dtype=dtype)
    r = torch.randn(tokens, hidden, generator=generator, device=device, dtype=dtype)
    w = 1 + 0.1 * torch.randn(hidden, generator=generator, device=device, dtype=dtype)
    return x, r, w


def block(norm, x: torch.Tensor, r: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    h = x + r
    n = norm(h, w)
    return n * torch.sigmoid(n) + h


def norm_block(x: torch.Tensor, r: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return block(rms_norm, x, r, w)


fn = norm_block


def flops(shape, params, tensors) -> int:
    return 10 * math.prod(shape)  # add; square, sum, scale, weight; sigmoid, mul, add


def reduction_lengths(shape, params) -> tuple[int, ...]:
    return (shape[-1],)  # RMSNorm's mean of squares over hidden
