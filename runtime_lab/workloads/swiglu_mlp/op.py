"""swiglu_mlp, the worker's half: weights as plain tensors, scaled so outputs stay O(1)."""

from __future__ import annotations

import torch
import torch.nn.functional as F


def inputs(shape, params, dtype, device, generator):
    tokens, hidden = shape
    inter = params["intermediate"]

    def weight(rows: int, cols: int) -> torch.Tensor:
        w = torch.randn(rows, cols, generator=generator, device=device, dtype=dtype)
        return w * cols**-0.5

    x = torch.randn(tokens, hidden, generator=generator, device=device, dtype=dtype)
    return x, weight(inter, hidden), weight(inter, hidden), weight(hidden, inter)


def swiglu_mlp(x, w_gate, w_up, w_down) -> torch.Tensor:
    return F.linear(F.silu(F.linear(x, w_gate)) * F.linear(x, w_up), w_down)


fn = swiglu_mlp


def flops(shape, params, tensors) -> int:
    tokens, hidden = shape
    return 3 * 2 * tokens * hidden * params["intermediate"]


def reduction_lengths(shape, params) -> tuple[int, ...]:
    return (shape[1], params["intermediate"])  # gate and up over hidden, down over intermediate


def grad_reduction_lengths(shape, params) -> dict[int, tuple[int, ...]]:
    """dh = dout · w_down over hidden; the gate and up at the forward's (over hidden); then dx
    over intermediate twice (gate and up), each weight's over tokens."""
    tokens, hidden = shape
    inter = params["intermediate"]
    weight = (hidden, hidden, tokens)
    return {0: (hidden, hidden, inter, inter), 1: weight, 2: weight, 3: (hidden, tokens)}
