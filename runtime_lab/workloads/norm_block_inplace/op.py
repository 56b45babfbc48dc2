"""norm_block_inplace, the worker's half: h goes into the caller's buffer, then the block."""

from __future__ import annotations

import torch

from runtime_lab.workloads.norm_block.op import flops, reduction_lengths
from runtime_lab.workloads.norm_block.op import inputs as block_inputs
from runtime_lab.workloads.rms_norm.op import rms_norm

__all__ = ["GRAD_INPUTS", "flops", "fn", "inputs", "reduction_lengths"]

# buf is scratch the call writes into: a leaf that required grad could not be written in place
GRAD_INPUTS = (0, 1, 2)


def inputs(shape, params, dtype, device, generator):
    x, r, w = block_inputs(shape, params, dtype, device, generator)
    # random, not empty: whatever buf held before must not matter (each call overwrites it)
    buf = torch.randn(shape, generator=generator, device=device, dtype=dtype)
    return x, r, w, buf


def norm_block_inplace(x, r, w, buf):
    h = buf.copy_(x).add_(r)  # the same h every call: the mutation never accumulates
    n = rms_norm(h, w)
    return n * torch.sigmoid(n) + h


fn = norm_block_inplace
