"""What every experiment shares in the worker: device resolution, the memory check, progress."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import psutil
import torch

from runtime_lab.shapes import DTYPE_BYTES
from runtime_lab.spec import RunSpec

# Keep a margin: cuBLAS workspaces, the L2-flush buffer and fragmentation need room too.
FIT_FRACTION = 0.9
GIB = 2**30
# (rtol, atol): torch.testing.assert_close's own defaults per dtype, stated so pages can show them
TOLERANCES = {"float32": (1.3e-6, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float16": (1e-3, 1e-5)}


class Refused(Exception):
    """The job cannot run on this machine as asked; said before anything ran, never recorded."""


def _no_phase(phase: str, partial: object) -> None:
    return None


@dataclass
class Context:
    device: torch.device
    progress: Callable[[str, int | None, int | None], None]
    # phase("evidence", partial_result): every timed figure is in; what follows (profiler,
    # traces, sanitizers) times nothing, so the server may start the next worker meanwhile
    # and show the partial result (issue 27)
    phase: Callable[[str, object], None] = _no_phase
    # what the server found to take from an earlier stored run instead of measuring it again
    # (fusion: {"compile_from_run": 3}); {}: measure everything
    reuse: dict[str, Any] = field(default_factory=dict)


def torch_dtype(name: str) -> torch.dtype:
    return {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[name]


def element_bytes(spec: RunSpec) -> int:
    return DTYPE_BYTES[spec.dtype]


def resolve_device(spec: RunSpec) -> torch.device:
    """auto → cuda:0 when there is a GPU, else cpu; refuse a device this machine lacks."""
    if spec.device == "auto":
        return torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    if spec.device == "cpu":
        return torch.device("cpu")
    if not torch.cuda.is_available():
        raise Refused(
            f"device {spec.device!r} needs CUDA, but this machine has no GPU; use cpu or auto"
        )
    index = int(spec.device.split(":")[1]) if ":" in spec.device else 0
    count = torch.cuda.device_count()
    if index >= count:
        allowed = ", ".join(f"cuda:{i}" for i in range(count))
        raise Refused(
            f"device {spec.device!r}: this machine has {count} GPU(s); allowed: {allowed}"
        )
    if spec.dtype == "bfloat16" and not torch.cuda.is_bf16_supported():
        raise Refused(f"bfloat16 is not supported on {torch.cuda.get_device_name(index)}")
    return torch.device(f"cuda:{index}")


def free_bytes(device: torch.device) -> int:
    if device.type == "cuda":
        free, _total = torch.cuda.mem_get_info(device)
        return free
    return psutil.virtual_memory().available


def check_fits(needed: int, device: torch.device) -> None:
    """Refuse, naming both numbers, a job whose estimate exceeds what the device has free."""
    free = free_bytes(device)
    if needed > free * FIT_FRACTION:
        where = "free GPU memory" if device.type == "cuda" else "available host RAM"
        raise Refused(
            f"needs about {needed / GIB:.2f} GiB but {device} has {free / GIB:.2f} GiB of {where} "
            f"(the lab keeps {100 - FIT_FRACTION * 100:.0f} % spare); choose a smaller shape or dtype"
        )
