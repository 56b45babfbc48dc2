"""cross_entropy, the worker's half: logits in the run's dtype, int64 targets, mean loss."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F


def inputs(shape, params, dtype, device, generator):
    tokens, vocab = shape
    logits = torch.randn(tokens, vocab, generator=generator, device=device, dtype=dtype)
    targets = torch.randint(0, vocab, (tokens,), generator=generator, device=device)
    return logits, targets


def cross_entropy(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(logits.float(), targets)


fn = cross_entropy


def reference(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """In the logits' own float64: fn's .float() would round the reference to float32."""
    return F.cross_entropy(logits, targets)


def flops(shape, params, tensors) -> int:
    return 4 * math.prod(shape)  # max, subtract, exp, sum per logit


def reduction_lengths(shape, params) -> tuple[int, ...]:
    tokens, vocab = shape
    return (vocab, tokens)  # each row's logsumexp over vocab, the mean over tokens
