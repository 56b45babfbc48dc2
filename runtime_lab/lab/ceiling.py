"""Memory-bandwidth ceilings: a copy, the 2-reads-1-write add, and the theoretical peak if known."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import torch

from runtime_lab.config import CEILING_FILE
from runtime_lab.lab.base import free_bytes
from runtime_lab.lab.timing import measure
from runtime_lab.results import stats

# bytes in the buffers of one measurement, far past the L2 / LLC: a DRAM figure
CEILING_BYTES = {"cuda": 1 << 30, "cpu": 256 << 20}
# The add keeps gaining with size: on the H200 (do_bench, 2026-12-03) 4,281 GB/s over 1 GiB moved
# in fp32, 4,373 over 12 GiB, 4,391 over 6 GiB in bf16, while the fused kernel reached 4,418 at
# 32768² bf16 (6 GiB moved). So the add moves as much as the largest runs do, in bf16.
ADD_BYTES = {"cuda": 6 << 30, "cpu": 256 << 20}
ADD_DTYPE = {"cuda": torch.bfloat16, "cpu": torch.float32}
ADD_SOURCE = "add (2 reads + 1 write)"


def _median_s(fn, device: torch.device, label: str) -> float:
    timing = measure(fn, device=device, label=label, warmup=5, repeat=30, l2_flush=False)
    return stats(timing.primary_ms).median / 1e3


def _fits(nbytes: int, device: torch.device) -> bool:
    return nbytes < free_bytes(device) * 0.8


def copy_gbps(device: torch.device, nbytes: int) -> float | None:
    """Device-to-device copy of nbytes: read + write bytes over the median time."""
    if not _fits(2 * nbytes, device):
        return None
    src = torch.empty(nbytes, dtype=torch.uint8, device=device).random_(0, 255)
    dst = torch.empty_like(src)
    return 2 * nbytes / _median_s(lambda: dst.copy_(src), device, "copy") / 1e9


def add_gbps(device: torch.device, nbytes: int) -> float | None:
    """torch.add(x, y, out=z) over three buffers of nbytes in all: the fused workload's byte
    pattern (two streams read, one written), which a copy does not have."""
    if not _fits(nbytes, device):
        return None
    dtype = ADD_DTYPE[device.type]
    size = torch.empty((), dtype=dtype).element_size()
    n = -(-nbytes // (3 * size))  # elements per buffer: three buffers of at least nbytes in all
    x = torch.randn(n, device=device, dtype=dtype)
    y = torch.randn(n, device=device, dtype=dtype)
    z = torch.empty_like(x)
    return 3 * n * size / _median_s(lambda: torch.add(x, y, out=z), device, "add") / 1e9


def theoretical_gbps(device: torch.device) -> tuple[float | None, str]:
    """bus width / 8 × memory clock × 2 (double data rate), from the device properties or NVML;
    (None, why) when either number is missing."""
    if device.type != "cuda":
        return None, "not available: no device memory peak for a CPU"
    props = torch.cuda.get_device_properties(device)
    clock_khz = getattr(props, "memory_clock_rate", 0) or 0
    bus_bits = getattr(props, "memory_bus_width", 0) or 0
    source = "torch device properties"
    if not (clock_khz > 0 and bus_bits > 0):
        clock_khz, bus_bits, source = _nvml(device)
    if not (clock_khz > 0 and bus_bits > 0):
        return None, "not available: memory clock and bus width not both reported"
    gbps = bus_bits / 8 * clock_khz * 1e3 * 2 / 1e9
    detail = f"{bus_bits}-bit bus × {clock_khz / 1e3:.0f} MHz memory clock × 2 ({source})"
    return gbps, detail


def _nvml(device: torch.device) -> tuple[float, int, str]:
    try:
        import pynvml

        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(device.index or 0)
        clock_mhz = pynvml.nvmlDeviceGetMaxClockInfo(handle, pynvml.NVML_CLOCK_MEM)
        bus_bits = pynvml.nvmlDeviceGetMemoryBusWidth(handle)
        return clock_mhz * 1e3, int(bus_bits), "NVML max memory clock"
    except Exception:  # no pynvml, no driver support: the peak is then not available
        return 0, 0, ""


def _key(device: torch.device) -> str:
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    return f"{name} | torch {torch.__version__}"


def ceilings(device: torch.device, data_dir: Path) -> dict[str, Any]:
    """Copy and add bandwidth (GB/s) and the theoretical peak, measured once per device and torch
    and cached in the data dir. An entry written before the add existed is measured again."""
    path = data_dir / CEILING_FILE
    cache = json.loads(path.read_text()) if path.exists() else {}
    key = _key(device)
    entry = cache.get(key) or {}
    add_bytes = ADD_BYTES[device.type]
    if entry.get("add_bytes") != add_bytes:  # written before, or with a smaller add: again
        nbytes = CEILING_BYTES[device.type]
        copy = copy_gbps(device, nbytes)
        add = add_gbps(device, add_bytes) or add_gbps(device, nbytes)
        peak, peak_detail = theoretical_gbps(device)
        entry = {
            "gbps": copy,  # the copy: what config.load_ceilings shows in the sidebar
            "bytes": nbytes,
            "add_gbps": add,
            "add_bytes": add_bytes,
            "theoretical_gbps": peak,
            "theoretical_detail": peak_detail,
            "measured_at": time.time(),
        }
        if copy is not None:  # a figure that did not fit is not cached: try again next job
            cache[key] = entry
            path.write_text(json.dumps(cache, indent=2))
    best = max(
        [(entry.get("add_gbps") or 0.0, ADD_SOURCE), (entry["gbps"] or 0.0, "copy")],
        key=lambda pair: pair[0],
    )
    return {
        "copy_ceiling_gbps": entry["gbps"],
        "add_gbps": entry.get("add_gbps"),
        "ceiling_gbps": best[0] or None,
        "ceiling_source": best[1] if best[0] else None,
        "theoretical_gbps": entry.get("theoretical_gbps"),
        "theoretical_detail": entry.get("theoretical_detail", ""),
    }
