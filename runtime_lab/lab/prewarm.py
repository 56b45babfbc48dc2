"""A worker's compiler warmed before its first job: one tiny compile, then every record cleared."""

from __future__ import annotations

import time

import torch

from runtime_lab.lab import compile_tools as ct


def _tiny(x: torch.Tensor) -> torch.Tensor:
    return x * 2 + 1  # the same small graph every time: a cache hit after a worker's first


def compiler(device: torch.device) -> dict[str, float | str]:
    """Compile and run one tiny function with Inductor on the worker's device, then forget it.
    The first compile in a process pays seconds of set-up once (Dynamo's first trace, Inductor's
    lowering and codegen imports, its compile workers, Triton's driver on a GPU): measured on the
    2-core CPU, the seed's 256² graph took 2.96 s to its first result in a fresh process with the
    disk caches warm, 0.17 s after this warm-up (which took 2.9 s). A spare pays it while it
    starts, before it says hello, so no user's Run waits for it and no timing shares the cores
    with it. Dynamo is reset and the counters and compile metrics cleared: a job's graph and
    recompile counts are its own; only the set-up is shared (the run's worker record says so)."""
    start = time.perf_counter()
    try:
        torch.compile(_tiny, fullgraph=True, dynamic=False)(torch.ones(8, device=device))
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        outcome = "done"
    except Exception as exc:  # a compiler that fails here fails in the job too, with its reason
        outcome = f"failed: {type(exc).__name__}: {exc}"[:300]
    torch._dynamo.reset()
    ct.clear_records()
    if device.type == "cuda":
        torch.cuda.empty_cache()
    return {"prewarm_s": round(time.perf_counter() - start, 3), "prewarm": outcome}
