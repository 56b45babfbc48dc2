"""rope, the worker's half: cos and sin from positions (base 10000), rotate_half as in HF Llama."""

from __future__ import annotations

import math

import torch

BASE = 10000.0
# a training step differentiates x alone: cos and sin are position tables, not parameters
GRAD_INPUTS = (0,)


def inputs(shape, params, dtype, device, generator):
    tokens, heads, dim = shape
    if dim % 2:
        raise ValueError(f"head_dim {dim} is odd: rotate_half splits it in two halves")
    x = torch.randn(tokens, heads, dim, generator=generator, device=device, dtype=dtype)
    freq = BASE ** (-torch.arange(0, dim, 2, device=device, dtype=torch.float32) / dim)
    angles = torch.arange(tokens, device=device, dtype=torch.float32)[:, None] * freq
    angles = torch.cat((angles, angles), dim=-1)
    return x, angles.cos().to(dtype), angles.sin().to(dtype)


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    return x * cos[:, None, :] + _rotate_half(x) * sin[:, None, :]


fn = rope


def flops(shape, params, tensors) -> int:
    return 4 * math.prod(shape)  # negate, two products, one sum per element


def reduction_lengths(shape, params) -> tuple[int, ...]:
    return ()  # elementwise: no reduction
