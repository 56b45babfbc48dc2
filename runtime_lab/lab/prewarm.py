"""A worker's compiler warmed before its first job: one tiny compile, then every record cleared."""

from __future__ import annotations

import os
import time

import torch

from runtime_lab.lab import compile_tools as ct
from runtime_lab.lab import vec_isa
from runtime_lab.lab.cache_env import cache_dirs, machine_cache

# set in the zygote by in_zygote(): a worker forked from it finds it in the memory it inherited
INHERITED: dict[str, float | str] | None = None


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


def gpu_driver_present() -> bool:
    """Whether this torch could reach a GPU here, answered without touching its driver."""
    built_for_gpu = torch.version.cuda is not None or torch.version.hip is not None
    return built_for_gpu and any(os.path.exists(d) for d in ("/dev/nvidiactl", "/dev/kfd"))


def in_zygote() -> dict[str, float | str] | None:
    """The zygote's warm-up, on the CPU, before it forks any worker: every worker then starts
    with Dynamo's and Inductor's device-free set-up done (2-core CPU: a forked worker's first
    compile of a new graph 3.6 s -> 0.26 s, caches warm). One thread and no compile workers
    while it runs: fork keeps only the calling thread, so an OpenMP or compile-worker pool
    started here would be dead in every child.
    Not where a GPU driver is present: even a CPU compile asks CUDA about the machine
    (Dynamo's reset asks torch.cuda.is_available(), Inductor's cache key calls
    torch.cuda.current_device(): both traced on the CPU), and CUDA started before fork is
    unusable in every child. GPU workers warm up on their own device instead."""
    global INHERITED
    import torch._inductor.config as inductor_config

    if gpu_driver_present():
        return None

    threads, pool = torch.get_num_threads(), inductor_config.compile_threads
    torch.set_num_threads(1)
    inductor_config.compile_threads = 1
    try:
        # the user's own caches, shared by every data directory: a new data directory's zygote pays
        # one cached compile (3.3 s on 2 cores), not a cold one (10.5 s). Only the in-process
        # set-up is kept from it: the tiny graph's code is never used again.
        with cache_dirs(machine_cache("prewarm")):
            INHERITED = compiler(torch.device("cpu"))
        vec_isa.probe("cpu")  # answered by the tiny compile or not, every fork inherits it
    finally:
        inductor_config.compile_threads = pool
        torch.set_num_threads(threads)
    return INHERITED
