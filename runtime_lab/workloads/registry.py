"""The one list of workloads: each is a package runtime_lab.workloads.<name> (info, op)."""

# Each workload package has the same two modules: info (INFO, a WorkloadInfo: no torch, read by
# the pages, the CLI and the spec check) and op (the worker's half: inputs, fn, flops; torch).

from __future__ import annotations

import importlib
from types import ModuleType

from runtime_lab.workloads.declare import WorkloadInfo

NAMES = (
    "pointwise",
    "long-chain",
    "matmul",
    "softmax",
    "rms_norm",
    "layer_norm",
    "swiglu_mlp",
    "gemm_epilogue",
    "attention",
    "cross_entropy",
    "rope",
    "transformer_block",
)


def _module(name: str) -> str:
    return name.replace("-", "_")


def _stage(name: str, stage: str) -> ModuleType:
    if name not in NAMES:  # names reach here from stored runs and links: never import a made-up one
        raise KeyError(f"unknown workload {name!r}; known: {', '.join(NAMES)}")
    return importlib.import_module(f"runtime_lab.workloads.{_module(name)}.{stage}")


WORKLOADS: dict[str, WorkloadInfo] = {name: _stage(name, "info").INFO for name in NAMES}


def get(name: str) -> WorkloadInfo:
    """A workload's declaration; KeyError names the ones there are."""
    _stage(name, "info")
    return WORKLOADS[name]


def op_module(name: str) -> ModuleType:
    """The worker's half (imports torch: only workers call this)."""
    return _stage(name, "op")
