"""matmul, the worker's half: (m × k) @ (k × n), inputs scaled so outputs stay near unit size."""

from __future__ import annotations

import torch


def inputs(shape, params, dtype, device, generator):
    m, k, n = shape
    a = torch.randn(m, k, generator=generator, device=device, dtype=dtype)
    b = torch.randn(k, n, generator=generator, device=device, dtype=dtype) * k**-0.5
    return a, b


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a @ b


fn = matmul  # the name compile logs and recompile reasons show


def flops(shape, params, tensors) -> int:
    m, k, n = shape
    return 2 * m * k * n


def reduction_lengths(shape, params) -> tuple[int, ...]:
    return (shape[1],)  # k


def grad_reduction_lengths(shape, params) -> dict[int, tuple[int, ...]]:
    m, k, n = shape
    return {0: (n,), 1: (m,)}  # da = dc · bᵀ over n, db = aᵀ · dc over m
