"""Theoretical occupancy of a CUDA kernel launch from its resources and the device's limits."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

WARPS, REGISTERS, SMEM, BLOCKS = "warps/threads", "registers", "shared memory", "blocks per SM"


@dataclass(frozen=True)
class Arch:
    """Per-architecture limits the device properties do not report."""

    max_warps_per_sm: int
    max_blocks_per_sm: int
    smem_per_sm_kib: int
    smem_per_block_kib: int  # the opt-in maximum per block
    smem_unit_bytes: int  # shared memory allocation granularity
    smem_reserved_bytes: int  # the driver's per-block reservation (sm_80 and later)
    registers_per_sm: int = 65536
    registers_per_block: int = 65536
    max_registers_per_thread: int = 255
    register_unit: int = 256  # registers are allocated per warp in units of 256
    sub_partitions: int = 4  # warp schedulers: registers are split between them


# CUDA C++ Programming Guide, "Compute Capabilities", table "Technical Specifications per
# Compute Capability" (resident warps and blocks per SM, shared memory per SM and per block);
# allocation units, sub-partitions and the 1 KiB reservation from CUDA's cuda_occupancy.h (12.6),
# which stops at 9.0: 10.0 and 12.0 keep 9.0's units.
ARCHS = {
    "7.0": Arch(64, 32, 96, 96, 256, 0),
    "7.2": Arch(64, 32, 96, 96, 256, 0),
    "7.5": Arch(32, 16, 64, 64, 256, 0),
    "8.0": Arch(64, 32, 164, 163, 128, 1024),
    "8.6": Arch(48, 16, 100, 99, 128, 1024),
    "8.7": Arch(48, 16, 164, 163, 128, 1024),
    "8.9": Arch(48, 24, 100, 99, 128, 1024),
    "9.0": Arch(64, 32, 228, 227, 128, 1024),
    "10.0": Arch(64, 32, 228, 227, 128, 1024),
    "12.0": Arch(48, 32, 128, 99, 128, 1024),
}
DEFAULT_SMEM_PER_BLOCK = 48 * 1024  # without cudaFuncSetAttribute's opt-in


@dataclass(frozen=True)
class DeviceLimits:
    """One GPU's occupancy limits as stored with a run: what the device reported where torch
    gives it (named in `reported`), the architecture table for the rest."""

    name: str
    compute_capability: str
    sm_count: int
    warp_size: int
    max_threads_per_sm: int
    max_threads_per_block: int
    max_blocks_per_sm: int
    registers_per_sm: int
    registers_per_block: int
    max_registers_per_thread: int
    register_unit: int
    smem_per_sm_bytes: int
    smem_per_block_bytes: int  # default limit per block (48 KiB)
    smem_per_block_optin_bytes: int
    smem_reserved_per_block_bytes: int
    smem_unit_bytes: int
    sub_partitions: int
    reported: tuple[str, ...] = ()
    arch: str = ""  # the table row used (the nearest lower minor of the major when not listed)

    @property
    def max_warps_per_sm(self) -> int:
        return self.max_threads_per_sm // self.warp_size


def arch_for(capability: str) -> str | None:
    """The table row for a compute capability: itself, else the nearest lower minor of its major."""
    if capability in ARCHS:
        return capability
    major, _, minor = capability.partition(".")
    rows = [
        k for k in ARCHS if k.split(".")[0] == major and int(k.split(".")[1]) <= int(minor or 0)
    ]
    return max(rows, key=lambda k: int(k.split(".")[1])) if rows else None


def device_limits(capability: str, name: str, sm_count: int, **given: Any) -> DeviceLimits | None:
    """The table's limits for `capability`, overridden by what the device reported (given:
    DeviceLimits field names; None values are ignored). None: no table row for that major."""
    row = arch_for(capability)
    if row is None:
        return None
    arch = ARCHS[row]
    limits = DeviceLimits(
        name=name,
        compute_capability=capability,
        sm_count=sm_count,
        warp_size=32,
        max_threads_per_sm=arch.max_warps_per_sm * 32,
        max_threads_per_block=1024,
        max_blocks_per_sm=arch.max_blocks_per_sm,
        registers_per_sm=arch.registers_per_sm,
        registers_per_block=arch.registers_per_block,
        max_registers_per_thread=arch.max_registers_per_thread,
        register_unit=arch.register_unit,
        smem_per_sm_bytes=arch.smem_per_sm_kib * 1024,
        smem_per_block_bytes=DEFAULT_SMEM_PER_BLOCK,
        smem_per_block_optin_bytes=arch.smem_per_block_kib * 1024,
        smem_reserved_per_block_bytes=arch.smem_reserved_bytes,
        smem_unit_bytes=arch.smem_unit_bytes,
        sub_partitions=arch.sub_partitions,
        arch=row,
    )
    known = {k: int(v) for k, v in given.items() if v is not None and hasattr(limits, k)}
    return replace(limits, **known, reported=tuple(sorted(known)))


# Kineto writes the device's cudaDeviceProp into every trace (top-level "deviceProperties")
TRACE_PROPERTIES = {
    "maxThreadsPerMultiprocessor": "max_threads_per_sm",
    "maxThreadsPerBlock": "max_threads_per_block",
    "regsPerMultiprocessor": "registers_per_sm",
    "regsPerBlock": "registers_per_block",
    "warpSize": "warp_size",
    "sharedMemPerBlock": "smem_per_block_bytes",
    "sharedMemPerBlockOptin": "smem_per_block_optin_bytes",
    "sharedMemPerMultiprocessor": "smem_per_sm_bytes",
}


def from_trace_properties(props: dict[str, Any]) -> DeviceLimits | None:
    """DeviceLimits from one entry of a Chrome trace's deviceProperties."""
    capability = f"{props['computeMajor']}.{props['computeMinor']}"
    given = {field: props.get(key) for key, field in TRACE_PROPERTIES.items()}
    return device_limits(capability, props.get("name", ""), int(props["numSms"]), **given)


@dataclass(frozen=True)
class Occupancy:
    """Resident blocks and warps per SM for one launch configuration, and what limits them."""

    blocks_per_sm: int
    warps_per_sm: int
    occupancy_pct: float  # resident warps over the SM's maximum
    limiting: str  # the resources that give the minimum, " + " between ties
    by_warps: int
    by_registers: int | None  # None: no limit (a kernel without registers)
    by_smem: int | None
    by_blocks: int
    registers_per_block: int  # as allocated: per warp, in register units
    smem_per_block_bytes: int  # as allocated: with the reservation, in allocation units


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def _by_registers(limits: DeviceLimits, warps: int, registers: int) -> tuple[int | None, int]:
    if registers <= 0:
        return None, 0
    per_warp = _round_up(registers * limits.warp_size, limits.register_unit)
    per_block = per_warp * warps
    # the hardware checks a block as if its warps were spread over every sub-partition
    assumed = per_warp * _round_up(warps, limits.sub_partitions)
    too_big = max(per_block, assumed) > limits.registers_per_block
    if registers > limits.max_registers_per_thread or too_big:
        return 0, per_block
    # each sub-partition has its own share of the register file; a warp lives in one
    per_partition = limits.registers_per_sm // limits.sub_partitions // per_warp
    return per_partition * limits.sub_partitions // warps, per_block


def _by_smem(limits: DeviceLimits, smem_bytes: int, optin: bool) -> tuple[int | None, int]:
    reserved = limits.smem_reserved_per_block_bytes
    allocated = _round_up(smem_bytes + reserved, limits.smem_unit_bytes)
    per_block = limits.smem_per_block_optin_bytes if optin else limits.smem_per_block_bytes
    if allocated > per_block + reserved:
        return 0, allocated
    return (limits.smem_per_sm_bytes // allocated if allocated else None), allocated


def occupancy(
    limits: DeviceLimits,
    threads_per_block: int,
    registers: int,
    smem_bytes: int = 0,
    optin: bool = True,
) -> Occupancy:
    """NVIDIA's occupancy calculator (cuda_occupancy.h): blocks per SM are the minimum of what
    warps, registers, shared memory (static + dynamic per block) and the block cap allow.
    optin=False checks shared memory against the 48 KiB default limit, as the profiler does."""
    warps = -(-threads_per_block // limits.warp_size)
    fits = 0 < threads_per_block <= limits.max_threads_per_block
    by_warps = limits.max_warps_per_sm // warps if fits else 0
    by_registers, registers_per_block = _by_registers(limits, warps, registers)
    by_smem, smem_per_block = _by_smem(limits, smem_bytes, optin)
    found = {
        WARPS: by_warps,
        REGISTERS: by_registers,
        SMEM: by_smem,
        BLOCKS: limits.max_blocks_per_sm,
    }
    blocks = min(v for v in found.values() if v is not None)
    return Occupancy(
        blocks_per_sm=blocks,
        warps_per_sm=blocks * warps,
        occupancy_pct=100.0 * blocks * warps / limits.max_warps_per_sm,
        limiting=" + ".join(k for k, v in found.items() if v == blocks),
        by_warps=by_warps,
        by_registers=by_registers,
        by_smem=by_smem,
        by_blocks=limits.max_blocks_per_sm,
        registers_per_block=registers_per_block,
        smem_per_block_bytes=smem_per_block,
    )


def profiler_estimate(
    limits: DeviceLimits, threads_per_block: int, registers: int, smem_bytes: int, grid_blocks: int
) -> int:
    """What Kineto writes as "est. achieved occupancy %": the occupancy with the default 48 KiB
    shared memory limit, capped by the grid's blocks per SM, in threads, rounded half up."""
    found = occupancy(limits, threads_per_block, registers, smem_bytes, optin=False)
    blocks = min(float(found.blocks_per_sm), grid_blocks / limits.sm_count)
    return int(0.5 + 100.0 * blocks * threads_per_block / limits.max_threads_per_sm)


def waves(limits: DeviceLimits, found: Occupancy, grid_blocks: int) -> float | None:
    """Grid blocks over what the whole GPU holds at once: below 1 the grid leaves SMs idle."""
    resident = found.blocks_per_sm * limits.sm_count
    return grid_blocks / resident if resident else None


def dims(text: str | None) -> tuple[int, ...] | None:
    """A KernelRow's grid or block ("256x1x1") as numbers."""
    if not text:
        return None
    try:
        return tuple(int(v) for v in text.split("x"))
    except ValueError:
        return None
