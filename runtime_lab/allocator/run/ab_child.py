"""One allocator configuration in a fresh process: the dynamic-batch steps, read per step.

PYTORCH_ALLOC_CONF is read when CUDA starts, so each configuration needs its own process; the
worker starts this module with the setting in the environment and reads one JSON document."""

from __future__ import annotations

import os

import torch

from runtime_lab.allocator.run import memtrace
from runtime_lab.allocator.run.work import Workload
from runtime_lab.lab import child


def _read(device: torch.device) -> dict:
    """The allocator's state now: stats, and from a snapshot its segments and free blocks."""
    torch.cuda.synchronize(device)
    stats = torch.cuda.memory_stats(device)
    snapshot = torch.cuda.memory._snapshot(device)
    index = device.index or 0
    seg = memtrace.summarize_segments(snapshot, index)
    segments = [s for s in snapshot.get("segments", []) if s.get("device", 0) == index]
    return {
        "allocated_bytes": stats.get("allocated_bytes.all.current", 0),
        "reserved_bytes": stats.get("reserved_bytes.all.current", 0),
        "peak_bytes": stats.get("allocated_bytes.all.peak", 0),
        "segments": seg.segments,
        "largest_free_bytes": seg.largest_inactive,
        "free_in_segments_bytes": seg.inactive,
        "expandable_segments": sum(bool(s.get("is_expandable")) for s in segments),
        "alloc_retries": stats.get("num_alloc_retries", 0),
    }


def main(args: dict) -> dict:
    device = torch.device(args["device"])
    torch.cuda.set_device(device)
    torch.cuda.init()
    work = Workload.from_args(args.get("workload"))
    steps, kept = [], None
    for i, (shape, dtype) in enumerate(args["calls"], start=1):
        torch.cuda.reset_peak_memory_stats(device)
        loaded = work.load(tuple(shape), dtype, device)
        out = loaded.call()
        del loaded
        # a batcher hands each step's output on and drops the previous one: blocks of different
        # sizes stay live across steps, which is what fragments a caching allocator
        kept = out
        steps.append({"step": i, "shape": list(shape), "dtype": dtype, **_read(device)})
    del kept, out
    torch.cuda.synchronize(device)
    end = _read(device)
    return {"config": os.environ.get("PYTORCH_ALLOC_CONF", ""), "steps": steps, "end": end}


if __name__ == "__main__":
    child.serve(main)  # a failure is this configuration's: the parent shows it, the other stands
