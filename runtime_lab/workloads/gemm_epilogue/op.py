"""gemm_epilogue, the worker's half: (m × k) @ (k × n) + bias, then the erf GELU."""

from __future__ import annotations

import torch
import torch.nn.functional as F


def inputs(shape, params, dtype, device, generator):
    m, k, n = shape
    a = torch.randn(m, k, generator=generator, device=device, dtype=dtype)
    b = torch.randn(k, n, generator=generator, device=device, dtype=dtype) * k**-0.5
    bias = 0.1 * torch.randn(n, generator=generator, device=device, dtype=dtype)
    return a, b, bias


def gemm_epilogue(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return F.gelu(a @ b + bias)


fn = gemm_epilogue


def flops(shape, params, tensors) -> int:
    m, k, n = shape
    return 2 * m * k * n + 10 * m * n  # the GEMM, then bias and GELU per output element


def reduction_lengths(shape, params) -> tuple[int, ...]:
    return (shape[1],)  # k


def grad_reduction_lengths(shape, params) -> dict[int, tuple[int, ...]]:
    """GELU's derivative at the forward's a @ b + bias (its k), then da over n, db and the
    bias's over m."""
    m, k, n = shape
    return {0: (k, n), 1: (k, m), 2: (k, m)}
