"""The compute ceiling: a measured square matmul in the job's dtype, and the datasheet peak."""

from __future__ import annotations

import torch

from runtime_lab.lab.base import free_bytes
from runtime_lab.lab.timing import measure
from runtime_lab.results import stats

# large enough that cuBLAS runs at its best tile shapes; small on a CPU (a 2-core run stays short)
SIDE = {"cuda": 8192, "cpu": 512}
# dense (no sparsity) datasheet peaks in TFLOP/s, by product name; fp32 without TF32, as torch's
# default (torch.backends.cuda.matmul.allow_tf32 is False). NVIDIA H100/H200 SXM datasheets.
PEAKS = {
    "H200": {"float32": 67.0, "bfloat16": 989.4, "float16": 989.4},
    "H100 80GB HBM3": {"float32": 67.0, "bfloat16": 989.4, "float16": 989.4},
}
PEAK_SOURCE = "NVIDIA datasheet, dense"


def matmul_tflops(device: torch.device, dtype: torch.dtype) -> tuple[float | None, str]:
    """TFLOP/s of an n × n × n matmul (2n³ FLOPs) at its median time, L2 not flushed (a GEMM of
    this size reuses its tiles from L2 anyway); (None, why) when it does not fit."""
    n = SIDE[device.type]
    size = torch.empty((), dtype=dtype).element_size()
    if 3 * n * n * size > free_bytes(device) * 0.5:
        return None, f"not measured: {n}² matmul buffers do not fit"
    a = torch.randn(n, n, device=device, dtype=dtype)
    b = torch.randn(n, n, device=device, dtype=dtype)
    timing = measure(
        lambda: a @ b, device=device, label="matmul", warmup=5, repeat=20, l2_flush=False
    )
    seconds = stats(timing.primary_ms).median / 1e3
    return 2 * n**3 / seconds / 1e12, f"torch.matmul {n}×{n}×{n}, median of 20 calls"


def peak_tflops(device: torch.device, dtype_name: str) -> tuple[float | None, str]:
    """The datasheet peak for this GPU and dtype, where the lab knows it."""
    if device.type != "cuda":
        return None, "no datasheet peak for a CPU"
    name = torch.cuda.get_device_name(device)
    for product, peaks in PEAKS.items():
        if product in name:
            return peaks[dtype_name], f"{product} {dtype_name}: {PEAK_SOURCE}"
    return None, f"no datasheet peak known for {name}"
