"""Worker diagnostics: jobs that succeed, sleep, raise inside torch, crash, hang, OOM, disturb."""

from __future__ import annotations

import os
import signal
import time

import torch

from runtime_lab.lab.base import Context
from runtime_lab.selftest.result import SelftestResult
from runtime_lab.spec import RunSpec


def estimate_bytes(spec: RunSpec) -> int:
    return 0


def _sleep(seconds: float, ctx: Context) -> None:
    steps = max(1, int(seconds * 10))
    for i in range(steps):
        time.sleep(seconds / steps)
        ctx.progress(f"sleeping {i + 1}/{steps}", i + 1, steps)


def _memory_history(ctx: Context) -> None:
    """Memory history on and off again (the process stays slower after); a CPU build has no
    recorder and raises, but the attempt alone is what the worker must notice."""
    try:
        torch.cuda.memory._record_memory_history(max_entries=1000)
    except (AttributeError, RuntimeError):
        if ctx.device.type == "cuda":
            raise
        return
    torch.ones(8, device=ctx.device).add_(1)
    torch.cuda.memory._record_memory_history(enabled=None)


def run(spec: RunSpec, ctx: Context) -> SelftestResult:
    behaviour = spec.option("behaviour")
    seconds = float(spec.option("seconds"))
    if behaviour == "sleep":
        _sleep(seconds, ctx)
    elif behaviour == "raise":
        # a real error from inside torch, not one of ours
        torch.ones(2, 3, device=ctx.device) @ torch.ones(4, 5, device=ctx.device)
    elif behaviour == "crash":
        ctx.progress("crashing on purpose", None, None)
        os.kill(os.getpid(), signal.SIGKILL)
    elif behaviour == "hang":
        ctx.progress("hanging on purpose", None, None)
        while True:
            time.sleep(1)
    elif behaviour == "profile":
        # a profiler session leaves the process slower: the worker must be replaced after it
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]):
            torch.ones(8, device=ctx.device).add_(1)
    elif behaviour == "memory-history":
        _memory_history(ctx)
    elif behaviour == "phased":  # a timed phase, then a profiled evidence phase, as fusion's
        _sleep(seconds, ctx)
        ctx.phase("evidence", SelftestResult(behaviour=behaviour, slept_s=seconds, pid=os.getpid()))
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]):
            torch.ones(8, device=ctx.device).add_(1)
        _sleep(seconds, ctx)
    elif behaviour == "oom":
        free = torch.cuda.mem_get_info(ctx.device)[0] if ctx.device.type == "cuda" else 2**50
        torch.empty(int(free * 2), dtype=torch.uint8, device=ctx.device)
    return SelftestResult(
        behaviour=behaviour,
        slept_s={"sleep": seconds, "phased": 2.0 * seconds}.get(behaviour, 0.0),
        pid=os.getpid(),
    )
