"""The seed chapter's pointwise workload, shared by every experiment that compiles it."""

from __future__ import annotations

import torch
import torch.nn.functional as F


def pointwise(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return F.silu(x + y) * (x - y)
