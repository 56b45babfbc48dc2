"""What a training step's forward saves for its backward: tensors and bytes, via autograd's pack hook."""

from __future__ import annotations

import torch
from torch.autograd.graph import saved_tensors_hooks


class SavedLog:
    """The tensors a forward packed for its backward: each save, and each storage kept once.
    The pack hook returns the tensor itself, so the backward runs as it would without it."""

    def __init__(self, inputs: tuple = ()):
        self.tensors = 0
        self.storages: dict[tuple, int] = {}  # (device, data_ptr) → the storage's bytes
        self.inputs = {_key(t) for t in inputs if isinstance(t, torch.Tensor)}

    def pack(self, t: torch.Tensor) -> torch.Tensor:
        self.tensors += 1
        self.storages[_key(t)] = _nbytes(t)
        return t

    @property
    def bytes(self) -> int:
        """The storages the saved tensors keep alive, each once (a view keeps its base's)."""
        return sum(self.storages.values())

    @property
    def activation_bytes(self) -> int:
        """Of those, the storages that are not the step's inputs (held between the passes)."""
        return sum(n for key, n in self.storages.items() if key not in self.inputs)

    def hooks(self):
        """The context to run a forward in: every tensor it saves passes through pack."""
        return saved_tensors_hooks(self.pack, _unpack)

    def as_dict(self) -> dict[str, int]:
        return {
            "tensors": self.tensors,
            "bytes": self.bytes,
            "activation_bytes": self.activation_bytes,
        }


def _key(t: torch.Tensor) -> tuple:
    """Which storage a tensor keeps alive; a tensor without one (sparse, a subclass): itself."""
    try:
        return (str(t.device), t.untyped_storage().data_ptr())
    except (RuntimeError, NotImplementedError):
        return ("tensor", id(t))


def _nbytes(t: torch.Tensor) -> int:
    try:
        return t.untyped_storage().nbytes()
    except (RuntimeError, NotImplementedError):
        return t.numel() * t.element_size()


def _unpack(t: torch.Tensor) -> torch.Tensor:
    return t


def count(step) -> dict[str, int]:
    """One more step (a training.Step: forward under the hooks, then its backward, which frees
    what was saved): what its forward saved, as {tensors, bytes, activation_bytes}. For eager
    these are autograd's nodes' saves; for a compiled mode, what AOTAutograd's partitioner
    chose to keep (CompiledFunction saves its forward graph's outputs for the backward)."""
    log = SavedLog(step.inputs)
    for i in step.indices:
        step.inputs[i].grad = None
    with log.hooks():
        out = step.run_forward()
    step.run_backward(out)
    return log.as_dict()
