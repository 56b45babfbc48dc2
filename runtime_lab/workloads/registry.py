"""The one list of workloads: each is a package runtime_lab.workloads.<name> (info, op)."""

# Each workload package has the same two modules: info (INFO, a WorkloadInfo: no torch, read by
# the pages, the CLI and the spec check) and op (the worker's half: inputs, fn, flops; torch).
# A user's workloads (issue 29) join at run time: on the server as their torch-free info only
# (add_user_info, from the describe child), in a worker with their callables too (add_user).

from __future__ import annotations

import importlib
from types import ModuleType, SimpleNamespace
from typing import Any

from runtime_lab.workloads.declare import Workload, WorkloadInfo

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
    "norm_block",
    "norm_block_opaque",
    "norm_block_opaque_grad",
    "norm_block_inplace",
)


def _module(name: str) -> str:
    return name.replace("-", "_")


def _stage(name: str, stage: str) -> ModuleType:
    if name not in NAMES:  # names reach here from stored runs and links: never import a made-up one
        raise KeyError(f"unknown workload {name!r}; known: {', '.join(WORKLOADS)}")
    return importlib.import_module(f"runtime_lab.workloads.{_module(name)}.{stage}")


WORKLOADS: dict[str, WorkloadInfo] = {name: _stage(name, "info").INFO for name in NAMES}
_USER_OPS: dict[str, SimpleNamespace] = {}  # a worker's user workloads: name → op namespace
CODE: dict[str, dict[str, Any]] = {}  # user workload → {file, sha256, source, truncated}


def get(name: str) -> WorkloadInfo:
    """A workload's declaration; KeyError names the ones there are."""
    if name in WORKLOADS:
        return WORKLOADS[name]
    raise KeyError(f"unknown workload {name!r}; known: {', '.join(WORKLOADS)}")


def op_module(name: str) -> ModuleType | SimpleNamespace:
    """The worker's half (imports torch: only workers call this)."""
    if name in _USER_OPS:
        return _USER_OPS[name]
    return _stage(name, "op")


def look_for(name: str) -> list[str]:
    """A report's first note on its workload: what to look for (none for a name not here)."""
    info = WORKLOADS.get(name)
    return [f"What to look for ({name}): {info.look_for}"] if info else []


def is_user(name: str) -> bool:
    return name in WORKLOADS and WORKLOADS[name].origin != "built-in"


def add_user_info(info: WorkloadInfo, code: dict[str, Any]) -> None:
    """The server's view of a user workload: its declaration and where its code is (no code
    is imported here). A name already taken keeps its first owner (the loader refused it)."""
    if info.name in NAMES:
        raise ValueError(f"{info.name!r} is a built-in workload's name")
    WORKLOADS[info.name] = info
    CODE[info.name] = dict(code)


def add_user(work: Workload, code: dict[str, Any]) -> None:
    """A worker's user workload: its declaration and callables, shaped as an op module."""
    add_user_info(work.info, code)
    _USER_OPS[work.info.name] = SimpleNamespace(
        inputs=work.inputs,
        fn=work.fn,
        **({"flops": work.flops} if work.flops else {}),
        **({"reference": work.reference} if work.reference else {}),
        **({"TOLERANCES": dict(work.tolerances)} if work.tolerances else {}),
        **({"GRAD_INPUTS": tuple(work.grad_inputs)} if work.grad_inputs is not None else {}),
    )


def clear_user() -> None:
    """Forget every user workload (the describe step runs again on reload)."""
    for name in [n for n in WORKLOADS if n not in NAMES]:
        del WORKLOADS[name]
    _USER_OPS.clear()
    CODE.clear()
