"""The process probe: a tiny op's CPU dispatch, a tiny kernel's launch, a tiny graph's replay."""

from __future__ import annotations

import statistics
import time

import psutil
import torch

# Per-call time is the mean over a batch, the figure the median of the batches: robust to a
# preemption hitting one batch, and a few thousand calls in all stays well under 100 ms
BATCH = 20
BATCHES = 25
WARMUP = 20


def _median_per_call_us(call, sync=None) -> float:
    for _ in range(WARMUP):
        call()
    if sync:
        sync()
    per_call = []
    for _ in range(BATCHES):
        start = time.perf_counter()
        for _ in range(BATCH):
            call()
        per_call.append((time.perf_counter() - start) * 1e6 / BATCH)
        if sync:
            sync()  # outside the timed span: launch_us is host time only
    return statistics.median(per_call)


def dispatch_us() -> float:
    """Host time of an in-place add on 1-element CPU tensors: the dispatcher's per-op cost."""
    x, y = torch.zeros(1), torch.ones(1)
    return _median_per_call_us(lambda: x.add_(y))


def launch_us(device: torch.device) -> float:
    """Host time of launching an add on 1-element CUDA tensors (synchronised between batches)."""
    x, y = torch.zeros(1, device=device), torch.ones(1, device=device)
    return _median_per_call_us(lambda: x.add_(y), lambda: torch.cuda.synchronize(device))


def graph_replay_us(device: torch.device) -> float:
    """Wall time per replay of a one-kernel CUDA graph, each batch synchronised at its end.

    Captured per probe and dropped after: a graph kept alive would hold its tensor's segment in
    the caching allocator, and the allocator experiment reads reserved bytes as they are."""
    x, y = torch.zeros(1, device=device), torch.ones(1, device=device)
    side = torch.cuda.Stream(device)
    side.wait_stream(torch.cuda.current_stream(device))
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.stream(side):
        x.add_(y)  # warm-up off the default stream, as capture asks
        # capture_begin/end, not torch.cuda.graph(): that one also runs gc.collect() and
        # empty_cache(), tens of ms in a process full of compiled code
        graph.capture_begin()
        x.add_(y)
        graph.capture_end()
    torch.cuda.current_stream(device).wait_stream(side)
    torch.cuda.synchronize(device)

    def batch() -> None:
        for _ in range(BATCH):
            graph.replay()
        torch.cuda.synchronize(device)

    for _ in range(2):
        batch()  # the first replay uploads the graph
    per_replay = []
    for _ in range(BATCHES):
        start = time.perf_counter()
        batch()
        per_replay.append((time.perf_counter() - start) * 1e6 / BATCH)
    return statistics.median(per_replay)  # the graph goes with this frame


def take() -> dict[str, float | None]:
    """All three figures (CUDA ones None without a GPU); initialises CUDA when there is one."""
    start = time.perf_counter()
    probe: dict[str, float | None] = {
        "dispatch_us": dispatch_us(),
        "launch_us": None,
        "graph_replay_us": None,
    }
    if torch.cuda.is_available():
        device = torch.device("cuda", torch.cuda.current_device())
        probe["launch_us"] = launch_us(device)
        probe["graph_replay_us"] = graph_replay_us(device)
        # hand the probe's blocks back, so the job finds the allocator as the last job left it
        torch.cuda.empty_cache()
    probe["took_ms"] = (time.perf_counter() - start) * 1e3
    # launch-bound figures depend on the core (docs/evidence/gpu.md, session 4 run 1)
    probe["cpu_core"] = psutil.Process().cpu_num()
    return probe
