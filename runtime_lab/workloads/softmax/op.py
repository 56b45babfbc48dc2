"""softmax, the worker's half: one input, softmax over its last dim."""

from __future__ import annotations

import math

import torch


def inputs(shape, params, dtype, device, generator):
    return (torch.randn(shape, generator=generator, device=device, dtype=dtype),)


def softmax(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, dim=-1)


fn = softmax


def flops(shape, params, tensors) -> int:
    return 5 * math.prod(shape)  # max, subtract, exp, sum, divide per element


def reduction_lengths(shape, params) -> tuple[int, ...]:
    return (shape[-1], shape[-1])  # the row's max and its sum of exponentials
