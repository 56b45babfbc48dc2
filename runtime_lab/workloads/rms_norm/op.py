"""rms_norm, the worker's half: HF LlamaRMSNorm written out (eps 1e-6)."""

from __future__ import annotations

import math

import torch

EPS = 1e-6


def inputs(shape, params, dtype, device, generator):
    tokens, hidden = shape
    x = torch.randn(tokens, hidden, generator=generator, device=device, dtype=dtype)
    w = 1 + 0.1 * torch.randn(hidden, generator=generator, device=device, dtype=dtype)
    return x, w


def wide(dtype: torch.dtype) -> torch.dtype:
    """At least float32: Llama's x.float() for bf16/fp16/fp32 (the same kernels), while float64
    stays float64, so the lab's float64 reference (fn over float64 copies) is not rounded to
    float32 at every norm of the blocks built on it."""
    return torch.promote_types(dtype, torch.float32)


def rms_norm(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    x32 = x.to(wide(x.dtype))
    out = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + EPS)
    return w * out.to(x.dtype)


fn = rms_norm


def flops(shape, params, tensors) -> int:
    return 5 * math.prod(shape)  # square, sum, scale, weight; one rsqrt per row


def reduction_lengths(shape, params) -> tuple[int, ...]:
    return (shape[-1],)  # the mean of squares over hidden
