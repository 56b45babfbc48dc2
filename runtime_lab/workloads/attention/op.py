"""attention, the worker's half: causal SDPA, and an explicit masked reference for float64."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

# flash / cuDNN kernels accumulate in fp32 but round P to bf16 / fp16 before P·v
TOLERANCES = {"bfloat16": (2e-2, 2e-2), "float16": (2e-3, 2e-3)}


def inputs(shape, params, dtype, device, generator):
    return tuple(
        torch.randn(shape, generator=generator, device=device, dtype=dtype) for _ in range(3)
    )


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


fn = attention


def reference(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """Causal attention written out, so the float64 answer depends on no SDPA backend."""
    seq = q.shape[-2]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    mask = torch.ones(seq, seq, dtype=torch.bool, device=q.device).tril()
    return torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1) @ v


def flops(shape, params, tensors) -> int:
    batch, heads, seq, dim = shape
    return 2 * 2 * batch * heads * seq * seq * dim // 2  # q·kᵀ and P·v, half of it masked


def reduction_lengths(shape, params) -> tuple[int, ...]:
    seq, dim = shape[2], shape[3]
    return (dim, seq, seq)  # q·kᵀ over head_dim, the softmax's sum and P·v over seq


def grad_reduction_lengths(shape, params) -> dict[int, tuple[int, ...]]:
    """dv = Pᵀ · dout over seq, at the forward's P; dq and dk add dP = dout · vᵀ and the
    softmax's row sum (over head_dim), then dS · k or dSᵀ · q over seq."""
    seq, dim = shape[2], shape[3]
    forward = reduction_lengths(shape, params)
    return {0: (*forward, dim, dim, seq), 1: (*forward, dim, dim, seq), 2: forward}
