"""Why the lab's CUDA graph of the fused kernel replays slower than a clean script's (issue 12).

Run on a CUDA machine: python -m scripts.evidence.graph_diagnosis. One process, 256² fp32; every
row is the median of 20 loops of 200 replays (CUDA events), host-issue µs beside it. Then the
clean script's between-process spread, unpinned and pinned to one core (docs' evidence log)."""

import os
import statistics
import subprocess
import sys
import time
import types

import torch

from runtime_lab.fusion.run import modes
from runtime_lab.lab.timing import measure, measure_loop
from runtime_lab.spec import build_spec
from runtime_lab.workloads.pointwise.op import pointwise

dev = torch.device("cuda:0")
x = torch.randn(256, 256, device=dev)
y = torch.randn_like(x)
CLEAN = (
    "import torch,statistics,torch.nn.functional as F\n"
    "x=torch.randn(256,256,device='cuda');y=torch.randn_like(x)\n"
    "f=lambda: F.silu(x+y)*(x-y)\n"
    "[f() for _ in range(50)]\n"
    "r=[]\n"
    "for _ in range(20):\n"
    " torch.cuda.synchronize();a=torch.cuda.Event(enable_timing=True);b=torch.cuda.Event(enable_timing=True)\n"
    " a.record()\n"
    " for _ in range(200): f()\n"
    " b.record();torch.cuda.synchronize();r.append(a.elapsed_time(b)*1e3/200)\n"
    "print(round(statistics.median(r),2))\n"
)


def one_loop(fn, calls: int = 200) -> tuple[float, float]:
    """(device µs, host-issue µs) per call over one loop of back-to-back calls."""
    torch.cuda.synchronize(dev)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    host_us = (time.perf_counter() - t0) * 1e6 / calls
    end.record()
    torch.cuda.synchronize(dev)
    return start.elapsed_time(end) * 1e3 / calls, host_us


def graph_of(fn, replay_closure=False):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn(x, y)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = fn(x, y)
    if replay_closure:
        return lambda: (g.replay(), out)[1]
    return g.replay


def row(tag, fn):
    for _ in range(50):
        fn()
    loops = [one_loop(fn) for _ in range(20)]
    dev_us = statistics.median(d for d, _ in loops)
    host_us = statistics.median(h for _, h in loops)
    first = loops[0][0]
    print(
        f"{tag:<58} {dev_us:7.2f} µs/call  host {host_us:6.2f}  1st loop {first:6.2f}", flush=True
    )


def fresh_compile(name, **kwargs):
    code = pointwise.__code__.replace()
    fn = types.FunctionType(code, pointwise.__globals__, name)
    return torch.compile(fn, **kwargs)


def in_process() -> None:
    row("graph of eager (clean style)", graph_of(pointwise))
    row("graph of torch.compile() default", graph_of(fresh_compile("a")))
    row("graph of torch.compile(fullgraph=True)", graph_of(fresh_compile("b", fullgraph=True)))
    row(
        "graph of compile(fullgraph=True, dynamic=None) + closure",
        graph_of(fresh_compile("c", fullgraph=True, dynamic=None), replay_closure=True),
    )
    spec = build_spec("fusion", "256x256", device="cuda", options={"modes": "cuda-graph-inductor"})
    lab = modes.build("cuda-graph-inductor", spec, x, y)
    row("lab modes.build('cuda-graph-inductor')", lab)
    row("lab modes.build('cuda-graph')", modes.build("cuda-graph", spec, x, y))
    t = measure(lab, device=dev, label="cgi", warmup=10, repeat=50, l2_flush=True)
    single = one_loop(lab)[0]
    loop = measure_loop(lab, dev, 200)
    print(
        f"after measure(l2_flush): single loop {single:.2f} µs; measure_loop median "
        f"{loop.us_per_call:.2f} (samples {min(loop.samples_us):.2f}..{max(loop.samples_us):.2f}); "
        f"flushed sample median {statistics.median(t.device_ms) * 1e3:.2f} µs",
        flush=True,
    )
    measure(lab, device=dev, label="cgi", warmup=10, repeat=50, l2_flush=True)
    print(
        f"again, single loop right after measure(l2_flush): {one_loop(lab)[0]:.2f} µs", flush=True
    )
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(5):
            lab()
        torch.cuda.synchronize()
    kernels = [e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    print("kernels in 5 replays of the lab graph:", len(kernels), sorted(set(kernels))[:6])


def between_processes() -> None:
    for pin in (None, "2", "9"):
        values = []
        for _ in range(4):
            cmd = [sys.executable, "-c", CLEAN]
            if pin:
                cmd = ["taskset", "-c", pin, *cmd]
            values.append(float(subprocess.run(cmd, capture_output=True, text=True).stdout.strip()))
        print(f"clean eager 256² loop, 4 processes, pinned to {pin}: {values}", flush=True)
    print("cpus", os.sched_getaffinity(0), "load", os.getloadavg(), time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    in_process()
    between_processes()
