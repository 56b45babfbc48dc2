"""norm_block_opaque_grad, the worker's half: the opaque RMSNorm custom op with an autograd formula."""

from __future__ import annotations

import torch

from runtime_lab.workloads.norm_block.op import block, flops, inputs, reduction_lengths
from runtime_lab.workloads.norm_block.op import norm_block as reference
from runtime_lab.workloads.rms_norm.op import EPS, wide
from runtime_lab.workloads.rms_norm.op import rms_norm as traceable

__all__ = ["flops", "fn", "inputs", "reduction_lengths", "reference"]
# reference: the float64 answer (forward and gradients) comes from the traceable block, not from
# this op, so a wrong registered formula shows as a gradient outside tolerance


# The forward is the same opaque node as norm_block_opaque's op; what differs is the formula
# registered below, written in plain torch ops: AOTAutograd traces it into the backward graph,
# where Inductor can fuse it with its neighbours (the barrier is the forward's only).
@torch.library.custom_op("runtime_lab::rms_norm_with_grad", mutates_args=())
def rms_norm(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return traceable(x, w)


@rms_norm.register_fake
def _(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(x)


def _setup_context(ctx, inputs, output) -> None:
    x, w = inputs
    ctx.save_for_backward(x, w)  # the op's inputs only: the formula recomputes rstd


def _backward(ctx, grad: torch.Tensor):
    """y = w · (x̂).to(dtype), x̂ = x·rstd, rstd = (mean(x²) + ε)^-½, in float32 as the forward:
    dw = Σ_tokens grad · x̂; dx = rstd · (g − x̂ · mean(g · x̂)) with g = grad · w."""
    x, w = ctx.saved_tensors
    up = wide(x.dtype)  # as the forward
    x32, g32 = x.to(up), grad.to(up)
    rstd = torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + EPS)
    normed = x32 * rstd
    dw = (g32 * normed.to(x.dtype).to(up)).sum(0).to(w.dtype)
    g = g32 * w.to(up)
    dx = rstd * (g - normed * (g * normed).mean(-1, keepdim=True))
    return dx.to(x.dtype), dw


rms_norm.register_autograd(_backward, setup_context=_setup_context)


def norm_block_opaque_grad(x: torch.Tensor, r: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return block(rms_norm, x, r, w)


fn = norm_block_opaque_grad
