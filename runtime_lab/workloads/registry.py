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


WORKLOADS: dict[str, WorkloadInfo] = {
    name: importlib.import_module(f"runtime_lab.workloads.{_module(name)}.info").INFO
    for name in NAMES
}


def get(name: str) -> WorkloadInfo:
    """A workload's declaration; KeyError names the ones there are."""
    if name not in WORKLOADS:
        raise KeyError(f"unknown workload {name!r}; known: {', '.join(WORKLOADS)}")
    return WORKLOADS[name]


def op_module(name: str) -> ModuleType:
    """The worker's half (imports torch: only workers call this)."""
    get(name)  # a made-up name is never imported
    return importlib.import_module(f"runtime_lab.workloads.{_module(name)}.op")
