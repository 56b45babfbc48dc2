"""layer_norm, the worker's half: F.layer_norm over the last dim with weight and bias."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

EPS = 1e-5


def inputs(shape, params, dtype, device, generator):
    tokens, hidden = shape
    x = torch.randn(tokens, hidden, generator=generator, device=device, dtype=dtype)
    w = 1 + 0.1 * torch.randn(hidden, generator=generator, device=device, dtype=dtype)
    b = 0.1 * torch.randn(hidden, generator=generator, device=device, dtype=dtype)
    return x, w, b


def layer_norm(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return F.layer_norm(x, (x.shape[-1],), w, b, EPS)


fn = layer_norm


def flops(shape, params, tensors) -> int:
    return 8 * math.prod(shape)  # mean, variance (sub, square, sum), normalise, scale, shift


def reduction_lengths(shape, params) -> tuple[int, ...]:
    return (shape[-1], shape[-1])  # the mean, then the variance, over hidden
