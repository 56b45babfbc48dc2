"""GPU memory outside PyTorch's caching allocator, step by step, in a fresh process.

The worker already holds a CUDA context, cuBLAS and Triton modules, so only a new process can
show what each costs when it first arrives. Device-wide used memory (total − free from
cudaMemGetInfo) is compared with this process's reserved bytes after each step; the parent
measured the device before starting it, so the differences are this process's own."""

from __future__ import annotations

import os
import socket

import torch

from runtime_lab.allocator.run.work import Workload
from runtime_lab.lab import child


def _reading(step: str, device: torch.device, detail: str = "") -> dict:
    torch.cuda.synchronize(device)
    free, total = torch.cuda.mem_get_info(device)
    nvml = None
    used_fn = getattr(torch.cuda, "device_memory_used", None)  # NVML, where pynvml is present
    if used_fn is not None:
        try:
            nvml = int(used_fn(device))
        except Exception:
            nvml = None
    return {
        "step": step,
        "device_used_bytes": int(total - free),
        "nvml_used_bytes": nvml,
        "reserved_bytes": int(torch.cuda.memory_reserved(device)),
        "allocated_bytes": int(torch.cuda.memory_allocated(device)),
        "detail": detail,
    }


def _nccl(device: torch.device) -> tuple[str, str]:
    import torch.distributed as dist

    if not dist.is_available() or not dist.is_nccl_available():
        return "skipped", "this torch build has no NCCL"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("nccl", rank=0, world_size=1, device_id=device)
    t = torch.ones(1024, device=device)
    dist.all_reduce(t)  # the communicator is created lazily: the first collective makes it
    torch.cuda.synchronize(device)
    version = ".".join(map(str, torch.cuda.nccl.version()))
    return "ran", f"one-rank process group, NCCL {version}, one all_reduce"


def _first_compile(args: dict, device: torch.device) -> None:
    """The run's workload at its first shape (the seed's pointwise at 256² when none is named),
    compiled and called once."""
    work = Workload.from_args(args.get("workload"))
    shape, dtype = args.get("call") or [[256, 256], "float32"]
    loaded = work.load(tuple(shape), dtype, device)
    torch.compile(loaded.fn, dynamic=False)(*loaded.inputs)


def main(args: dict) -> dict:
    device = torch.device(args["device"])
    torch.cuda.set_device(device)
    steps = []
    torch.cuda.init()
    torch.empty(0, device=device)  # the primary context, with no PyTorch allocation yet
    steps.append(_reading("CUDA context", device, "torch.cuda.init() and an empty tensor"))
    a = torch.randn(256, 256, device=device)
    (a @ a).sum().item()
    steps.append(_reading("first cuBLAS call", device, "a 256² matmul: handle, kernels, workspace"))
    _first_compile(args, device)
    steps.append(_reading("first compiled Triton kernel", device, "torch.compile of the workload"))
    try:
        state, detail = _nccl(device)
    except Exception as exc:
        state, detail = "failed", f"{type(exc).__name__}: {exc}"[:300]
    if state == "ran":
        steps.append(_reading("NCCL process group", device, detail))
    return {"steps": steps, "nccl": {"state": state, "detail": detail}}


if __name__ == "__main__":
    child.serve(main)
