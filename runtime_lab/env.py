"""Environment fingerprint stored with every result: Python, torch, CUDA, driver, GPU, host."""

from __future__ import annotations

import contextlib
import importlib.metadata
import os
import platform
import shutil
import subprocess
from typing import Any

import psutil

from runtime_lab import envvars
from runtime_lab.envvars import THREADS_SOURCE_ENV
from runtime_lab.envvars import TORCH_THREADS_ENV as THREADS_ENV


def gpu_likely() -> bool:
    """Whether this host seems to have an NVIDIA GPU, without torch: the form's first guess
    until the worker reports the real environment."""
    return shutil.which("nvidia-smi") is not None or os.path.exists("/dev/nvidiactl")


def physical_cores() -> int:
    """Physical cores this process may run on (its affinity mask, where the OS has one)."""
    physical = psutil.cpu_count(logical=False) or psutil.cpu_count() or 1
    with contextlib.suppress(AttributeError, OSError):  # no affinity API on macOS
        physical = min(physical, len(os.sched_getaffinity(0)))
    return physical


def choose_torch_threads() -> tuple[int, str]:
    """Intra-op threads for the worker, and why: $RUNTIME_LAB_TORCH_THREADS (with the pool's
    reason in $RUNTIME_LAB_TORCH_THREADS_SOURCE when the pool set it), else one physical core
    fewer than the worker may use, left to the server and the browser on the same host (with
    every core busy, CPU timings would fight them and swing). A value envvars.py does not
    allow (`²`, `0`, past the cores) is the default here: the server refused it before any
    worker started, and a worker must never die of one at start."""
    threads = envvars.value(THREADS_ENV)
    if threads is not None:
        return threads, envvars.value(THREADS_SOURCE_ENV) or THREADS_ENV
    return max(1, physical_cores() - 1), "physical cores - 1"


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def _driver_version() -> str | None:
    """The NVIDIA driver version from nvidia-smi; torch does not expose it."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return None
    try:
        out = subprocess.run(
            [smi, "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return out.strip().splitlines()[0] if out.strip() else None


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


CPU_CACHES = "/sys/devices/system/cpu/cpu0/cache"
_SIZE_UNITS = {"K": 2**10, "M": 2**20, "G": 2**30}


def llc_bytes(root: str = CPU_CACHES) -> int | None:
    """The host CPU's last-level cache (the highest level sysfs lists for cpu0), in bytes; None
    where sysfs does not say (macOS, a container without it): a working set below it can be
    served from cache, so a bandwidth figure above the DRAM ceiling is cache bandwidth."""
    found: dict[int, int] = {}
    with contextlib.suppress(OSError, ValueError):
        for entry in sorted(os.listdir(root)):
            if not entry.startswith("index"):
                continue
            with open(os.path.join(root, entry, "type"), encoding="utf-8") as fh:
                if fh.read().strip() == "Instruction":
                    continue
            with open(os.path.join(root, entry, "level"), encoding="utf-8") as fh:
                level = int(fh.read().strip())
            with open(os.path.join(root, entry, "size"), encoding="utf-8") as fh:
                size = fh.read().strip()
            found[level] = (
                int(size[:-1]) * _SIZE_UNITS[size[-1]] if size[-1] in _SIZE_UNITS else int(size)
            )
    return found[max(found)] if found else None


def _gpus(torch: Any) -> list[dict[str, Any]]:
    if not torch.cuda.is_available():
        return []
    gpus = []
    for index in range(torch.cuda.device_count()):
        props = torch.cuda.get_device_properties(index)
        gpus.append(
            {
                "index": index,
                "name": props.name,
                "compute_capability": f"{props.major}.{props.minor}",
                "sm_count": props.multi_processor_count,
                "memory_bytes": props.total_memory,
                "l2_cache_bytes": getattr(props, "L2_cache_size", None),
                "bf16_supported": props.major >= 8,
            }
        )
    return gpus


def fingerprint(torch_threads_source: str | None = None) -> dict[str, Any]:
    """Everything needed to say where a figure came from. Imports torch: worker-side only."""
    import torch

    memory = psutil.virtual_memory()
    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cuda_runtime": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None,
        "triton": _version("triton") or _version("pytorch-triton"),
        "driver": _driver_version(),
        "cuda_available": torch.cuda.is_available(),
        "gpus": _gpus(torch),
        "host_cpu": _cpu_name(),
        "host_cores": psutil.cpu_count(logical=True),
        "host_ram_bytes": memory.total,
        "host_llc_bytes": llc_bytes(),
        "host_ram_available_bytes": memory.available,
        "host_physical_cores": psutil.cpu_count(logical=False),
        "torch_threads": torch.get_num_threads(),
        "torch_threads_source": torch_threads_source,  # None: torch's own default
        "platform": platform.platform(),
        "hostname": platform.node(),
        "pid": os.getpid(),
    }
