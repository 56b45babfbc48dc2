"""Fusion kernels → legend-sized names, and a tidy frame of their resources, occupancy and GB/s."""

from __future__ import annotations

import math
import re
from typing import Any

import pandas as pd

from runtime_lab.compiler import occupancy as oc
from runtime_lab.fusion.result import FusionResult, ModeResult
from runtime_lab.results import KernelRow, TritonKernel

COLUMNS = [
    "mode",
    "kernel",
    "name",
    "grid",
    "block",
    "threads_per_block",
    "grid_blocks",
    "registers_per_thread",
    "registers_source",
    "spilled_registers",
    "smem_bytes",
    "smem_dynamic_bytes",
    "triton_config",
    "blocks_per_sm",
    "warps_per_sm",
    "occupancy_pct",
    "limiting_resource",
    "waves",
    "profiler_occupancy_pct",
    "launches_per_call",
    "us_per_launch",
    "us_per_call",
    "bytes_per_launch",
    "gbps",
]
# what the page's table shows, in reading order (the frame keeps every column for the chart)
TABLE = [
    "mode",
    "kernel",
    "grid",
    "block",
    "registers_per_thread",
    "spilled_registers",
    "smem_bytes",
    "occupancy_pct",
    "limiting_resource",
    "profiler_occupancy_pct",
    "waves",
    "us_per_call",
    "gbps",
    "triton_config",
]


# CUDA's eager kernels share one templated name (vectorized_elementwise_kernel<…>); the functor
# inside says which op it is. Wrappers around that functor say nothing.
GENERIC_FUNCTORS = {"BinaryFunctor", "AUnaryFunctor", "BUnaryFunctor", "OpaqueType"}


def short_kernel_name(name: str) -> str:
    """A legend-sized name: CUDA templates reduced to kernel<functor>; other names unchanged."""
    if not (name.startswith("void ") or "<" in name):
        return name
    base = re.match(r"(?:void\s+)?([\w:]+)", name)
    outer = base.group(1).split("::")[-1] if base else name
    inner = name[name.find("<") + 1 :] if "<" in name else ""
    hits = re.findall(r"\w*Functor\w*|\w+_kernel\w*", inner)
    specific = [h for h in hits if h not in GENERIC_FUNCTORS] or hits
    return f"{outer}<{specific[-1]}>" if specific else outer


def triton_for(row: KernelRow, mode: ModeResult) -> TritonKernel | None:
    """The compiled Triton kernel a profiled one is: the profiler names it as Triton does."""
    for found in mode.triton_kernels:
        if row.name == found.name or row.name.endswith(f"_{found.name}"):
            return found
    return None


def _occupancy(limits, threads: int | None, registers, smem) -> dict[str, Any]:
    if limits is None or not threads or registers is None:
        return {}
    found = oc.occupancy(limits, threads, int(registers), int(smem or 0))
    return {
        "blocks_per_sm": found.blocks_per_sm,
        "warps_per_sm": found.warps_per_sm,
        "occupancy_pct": found.occupancy_pct,
        "limiting_resource": found.limiting,
        "_found": found,
    }


def _row(result: FusionResult, mode: ModeResult, k: KernelRow) -> dict[str, Any]:
    triton = triton_for(k, mode)
    block, grid = oc.dims(k.block), oc.dims(k.grid)
    threads = math.prod(block) if block else None
    grid_blocks = math.prod(grid) if grid else None
    registers = k.registers if k.registers is not None else (triton and triton.registers)
    source = "profiler" if k.registers is not None else ("Triton" if registers else None)
    smem = k.shared_memory_bytes
    if smem is None and triton is not None:
        smem = triton.shared_bytes
    limits = result.device_limits
    row = {
        "mode": mode.mode,
        "kernel": short_kernel_name(k.name),
        "name": k.name,
        "grid": k.grid,
        "block": k.block,
        "threads_per_block": threads,
        "grid_blocks": grid_blocks,
        "registers_per_thread": registers,
        "registers_source": source,
        "spilled_registers": triton.spilled_registers if triton else None,
        "smem_bytes": smem,
        "smem_dynamic_bytes": triton.shared_bytes if triton else None,
        "triton_config": triton.config if triton else None,
        "profiler_occupancy_pct": k.profiler_occupancy_pct,
        "launches_per_call": k.calls_per_run,
        "us_per_launch": k.mean_us,
        "us_per_call": k.total_us,
        "bytes_per_launch": k.bytes_per_launch,
        "gbps": k.bytes_per_launch / (k.mean_us * 1e3)
        if k.bytes_per_launch and k.mean_us
        else None,
    }
    row |= _occupancy(limits, threads, registers, smem)
    found = row.pop("_found", None)
    if found is not None and grid_blocks:
        row["waves"] = oc.waves(limits, found, grid_blocks)
    return row


def resources_frame(result: FusionResult) -> pd.DataFrame:
    """One row per mode and CUDA kernel with a launch configuration (copies and CPU ops have
    none): grid, block, registers (the trace's, else Triton's), shared memory, theoretical
    occupancy and its limiting resource, the profiler's estimate, time and GB/s per launch."""
    rows = [
        _row(result, mode, k) for mode in result.modes for k in mode.kernels if k.block is not None
    ]
    return pd.DataFrame(rows, columns=COLUMNS)


def longest(frame: pd.DataFrame) -> pd.DataFrame:
    """Each mode's kernel with the most time per call: the one its figures are about."""
    timed = frame.dropna(subset=["us_per_call"])
    if timed.empty:
        return timed
    return timed.loc[timed.groupby("mode", sort=False)["us_per_call"].idxmax()]
