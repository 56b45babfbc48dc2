"""Memory outside PyTorch's allocator as a frame, a stacked chart and a sentence per step."""

from __future__ import annotations

import pandas as pd

from runtime_lab.allocator.report import ab_charts
from runtime_lab.allocator.result import AllocatorResult

MIB = 2**20
WHERE = {
    "CUDA context": "the context itself: driver state, the CUDA runtime's and PyTorch's loaded "
    "kernel images, and the per-SM local-memory reservation; PyTorch holds nothing yet",
    "first cuBLAS call": "cuBLAS's handle and the kernel modules it loads on first use (lazy "
    "module loading); its workspace comes from PyTorch's allocator, so it shows as reserved",
    "first compiled Triton kernel": "the compiled kernel's module loaded into the context, plus "
    "whatever Inductor's first run allocated through PyTorch",
    "NCCL process group": "NCCL's communicator: buffers and channel state NCCL allocates with the "
    "driver directly, never through PyTorch's caching allocator",
}
COLUMNS = ["step", "process_mib", "reserved_mib", "outside_mib", "outside_added_mib", "where"]


def outside_frame(result: AllocatorResult) -> pd.DataFrame:
    """One row per step: the child's footprint on the device, PyTorch's share, the rest."""
    run = result.outside
    if run is None or not run.steps:
        return pd.DataFrame(columns=COLUMNS)
    rows, previous = [], 0.0
    for s in run.steps:
        process = (s.device_used_bytes - run.device_used_before_bytes) / MIB
        outside = process - s.reserved_bytes / MIB
        rows.append(
            {
                "step": s.step,
                "process_mib": process,
                "reserved_mib": s.reserved_bytes / MIB,
                "outside_mib": outside,
                "outside_added_mib": outside - previous,
                "where": WHERE.get(s.step, s.detail),
            }
        )
        previous = outside
    return pd.DataFrame(rows, columns=COLUMNS)


def parts(result: AllocatorResult) -> tuple[list, list, list]:
    """(charts, tables, notes) for the outside-the-allocator steps; empty when not asked."""
    run = result.outside
    if run is None:
        return [], [], []
    notes = [f"Memory outside the allocator: failed: {run.error}"] if run.error else []
    if run.nccl and not run.nccl.startswith("ran"):
        notes.append(f"NCCL step: {run.nccl}")
    frame = outside_frame(result)
    if frame.empty:
        return [], [], notes
    notes.append(
        "Outside PyTorch = the device's used memory (cudaMemGetInfo) minus what it was before the "
        "fresh process started, minus that process's reserved bytes: nvidia-smi counts all of it, "
        "torch.cuda.memory_reserved() none of the rest. Another process on the GPU at the same "
        "time would be counted too."
    )
    chart = ("Memory outside PyTorch's allocator, step by step", ab_charts.outside_chart(frame))
    return [chart], [("Memory outside PyTorch's allocator (a fresh process)", frame)], notes
