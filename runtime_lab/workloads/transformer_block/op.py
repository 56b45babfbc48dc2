"""transformer_block, the worker's half: the catalog's own RMSNorm, attention and SwiGLU MLP."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from runtime_lab.workloads.attention.op import reference as masked_attention
from runtime_lab.workloads.rms_norm.op import rms_norm
from runtime_lab.workloads.swiglu_mlp.op import swiglu_mlp

# a training step differentiates x and the ten weights: heads_t only carries the head count
GRAD_INPUTS = tuple(range(10))


def inputs(shape, params, dtype, device, generator):
    batch, seq, hidden = shape
    heads, inter = params["heads"], params["intermediate"]
    if hidden % heads:
        raise ValueError(f"hidden {hidden} is not divisible by heads {heads}")

    def weight(rows: int, cols: int) -> torch.Tensor:
        w = torch.randn(rows, cols, generator=generator, device=device, dtype=dtype)
        return w * cols**-0.5

    def norm_weight() -> torch.Tensor:
        return 1 + 0.1 * torch.randn(hidden, generator=generator, device=device, dtype=dtype)

    x = torch.randn(batch, seq, hidden, generator=generator, device=device, dtype=dtype)
    attn = tuple(weight(hidden, hidden) for _ in range(4))  # q, k, v, o
    mlp = (weight(inter, hidden), weight(inter, hidden), weight(hidden, inter))
    # heads travels as the shape of an empty tensor: a Python int would be baked into the graph
    return (x, norm_weight(), *attn, norm_weight(), *mlp, torch.empty(heads, 0, device=device))


def _block(x, n1, wq, wk, wv, wo, n2, wg, wu, wd, heads_t, attend) -> torch.Tensor:
    batch, seq, hidden = x.shape
    heads = heads_t.shape[0]

    def split(t: torch.Tensor) -> torch.Tensor:
        return t.view(batch, seq, heads, hidden // heads).transpose(1, 2)

    a = rms_norm(x, n1)
    o = attend(split(F.linear(a, wq)), split(F.linear(a, wk)), split(F.linear(a, wv)))
    h = x + F.linear(o.transpose(1, 2).reshape(batch, seq, hidden), wo)
    return h + swiglu_mlp(rms_norm(h, n2), wg, wu, wd)


def _sdpa(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def transformer_block(x, n1, wq, wk, wv, wo, n2, wg, wu, wd, heads_t) -> torch.Tensor:
    return _block(x, n1, wq, wk, wv, wo, n2, wg, wu, wd, heads_t, _sdpa)


fn = transformer_block


def reference(x, n1, wq, wk, wv, wo, n2, wg, wu, wd, heads_t) -> torch.Tensor:
    """The same block with attention written out: float64 needs no SDPA backend."""
    return _block(x, n1, wq, wk, wv, wo, n2, wg, wu, wd, heads_t, masked_attention)


def flops(shape, params, tensors) -> int:
    batch, seq, hidden = shape
    tokens, inter = batch * seq, params["intermediate"]
    gemms = 2 * tokens * hidden * (4 * hidden + 3 * inter)
    return gemms + 2 * batch * seq * seq * hidden  # attention: causal half of 4·b·s²·hidden


def reduction_lengths(shape, params) -> tuple[int, ...]:
    """Along the path: RMSNorm, q/k/v, q·kᵀ, softmax, P·v, o; RMSNorm, gate/up, down."""
    batch, seq, hidden = shape
    head_dim = hidden // params["heads"]
    return (hidden, hidden, head_dim, seq, seq, hidden, hidden, hidden, params["intermediate"])


def grad_reduction_lengths(shape, params) -> dict[int, tuple[int, ...]]:
    """x's gradient retraces the block's path (each reduction of the forward has a backward
    one of its length); each weight's also sums over the tokens."""
    batch, seq, _ = shape
    path = reduction_lengths(shape, params) * 2
    return {0: path} | {i: (*path, batch * seq) for i in range(1, 10)}
