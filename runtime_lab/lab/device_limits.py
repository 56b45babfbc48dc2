"""The GPU's occupancy limits at run time: torch's device properties over the architecture table."""

from __future__ import annotations

import torch

from runtime_lab.compiler.occupancy import ARCHS, DeviceLimits, device_limits

# torch.cuda.get_device_properties attribute → DeviceLimits field; older torch lacks some
PROPERTIES = {
    "max_threads_per_multi_processor": "max_threads_per_sm",
    "max_threads_per_block": "max_threads_per_block",
    "regs_per_multiprocessor": "registers_per_sm",
    "shared_memory_per_multiprocessor": "smem_per_sm_bytes",
    "shared_memory_per_block": "smem_per_block_bytes",
    "shared_memory_per_block_optin": "smem_per_block_optin_bytes",
    "warp_size": "warp_size",
}
CPU_NOTE = (
    "Kernel resources and occupancy need CUDA: on CPU the profiler lists host ops, with no "
    "grid, block, registers or shared memory to compute an occupancy from."
)


def read(device: torch.device) -> tuple[DeviceLimits | None, str]:
    """This device's limits and what to say about them (why there are none, or which figures
    came from the architecture table rather than the device)."""
    if device.type != "cuda":
        return None, CPU_NOTE
    if torch.version.hip:
        return None, "Occupancy follows NVIDIA's rules; this is a ROCm device: not computed."
    props = torch.cuda.get_device_properties(device)
    capability = f"{props.major}.{props.minor}"
    given = {field: getattr(props, attr, None) for attr, field in PROPERTIES.items()}
    limits = device_limits(capability, props.name, props.multi_processor_count, **given)
    if limits is None:
        known = ", ".join(ARCHS)
        return None, f"No occupancy limits for compute capability {capability} (known: {known})."
    missing = [attr for attr in PROPERTIES if getattr(props, attr, None) is None]
    if not missing:
        return limits, ""
    return limits, (
        f"torch {torch.__version__} does not report {', '.join(missing)}: the compute capability "
        f"{limits.arch} table's values stand in for them."
    )
