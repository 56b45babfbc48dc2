"""Memory outside the caching allocator: a fresh child, measured against the device before it."""

from __future__ import annotations

import torch

from runtime_lab.allocator.result import OutsideRun, OutsideStep
from runtime_lab.lab import child

TIMEOUT_S = 300


def run_outside(device: torch.device, work: dict | None = None, call=None) -> OutsideRun:
    """The device's used bytes now (this worker's included), then the child's steps above it;
    the child compiles the workload (run_work.Workload.args) at call (shape, dtype)."""
    torch.cuda.synchronize(device)
    free, total = torch.cuda.mem_get_info(device)
    before = int(total - free)
    args = {"device": str(device), "workload": work}
    if call is not None:
        args["call"] = [list(call[0]), call[1]]
    doc, why = child.run_module("runtime_lab.allocator.run.outside_child", args, TIMEOUT_S)
    if doc is None:
        return OutsideRun(before, error=f"the child: {why}")
    return parse(before, doc)


def parse(before: int, data: dict) -> OutsideRun:
    """The child's document as a typed run, against the device's used bytes before it."""
    if data.get("error"):
        return OutsideRun(before, error=data["error"])
    steps = tuple(OutsideStep(**s) for s in data["steps"])
    nccl = data.get("nccl") or {}
    return OutsideRun(
        before, steps=steps, nccl=f"{nccl.get('state', '')}: {nccl.get('detail', '')}"
    )
