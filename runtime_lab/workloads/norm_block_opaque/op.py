"""norm_block_opaque, the worker's half: RMSNorm registered as torch.library.custom_op."""

from __future__ import annotations

import torch

from runtime_lab.workloads.norm_block.op import block, flops, inputs, reduction_lengths
from runtime_lab.workloads.rms_norm.op import rms_norm as traceable

__all__ = ["flops", "fn", "inputs", "reduction_lengths"]


# mutates_args=(): it returns a new tensor. Inductor keeps the op as one extern node: the
# tensors around it are written to memory and read back, whatever could have fused
@torch.library.custom_op("runtime_lab::rms_norm", mutates_args=())
def rms_norm(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return traceable(x, w)


@rms_norm.register_fake
def _(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(x)  # the shape and dtype the compiler needs, nothing computed


def norm_block_opaque(x: torch.Tensor, r: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return block(rms_norm, x, r, w)


fn = norm_block_opaque
