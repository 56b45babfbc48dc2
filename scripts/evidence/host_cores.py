"""Does the core a process runs on set its launch-bound figures? One clean process per core.

Run on a CUDA machine: python -m scripts.evidence.host_cores (docs/evidence/gpu.md, issue 12). Each
process is pinned with taskset and times the eager 256² loop (median of 20 loops of 200 calls)
and a one-kernel graph's replay loop; then `nvidia-smi topo -m` says which cores are the GPU's."""

import os
import subprocess
import sys

CLEAN = r"""
import statistics, torch, torch.nn.functional as F
x = torch.randn(256, 256, device="cuda"); y = torch.randn_like(x)
f = lambda: F.silu(x + y) * (x - y)
s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    for _ in range(3): x.add(y)
torch.cuda.current_stream().wait_stream(s)
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g): out = x.add(y)
def loop(fn):
    for _ in range(50): fn()
    r = []
    for _ in range(20):
        torch.cuda.synchronize(); a = torch.cuda.Event(enable_timing=True); b = torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(200): fn()
        b.record(); torch.cuda.synchronize(); r.append(a.elapsed_time(b) * 1e3 / 200)
    return statistics.median(r)
print(f"{loop(f):.2f} {loop(g.replay):.2f}")
"""

cores = sorted(os.sched_getaffinity(0))
print("core  eager-256²-loop-µs  graph-replay-loop-µs", flush=True)
for core in cores:
    done = subprocess.run(
        ["taskset", "-c", str(core), sys.executable, "-c", CLEAN], capture_output=True, text=True
    )
    print(f"{core:>4}  {done.stdout.strip() or done.stderr[-200:]}", flush=True)
topo = subprocess.run(["nvidia-smi", "topo", "-m"], capture_output=True, text=True).stdout
print(topo)
lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
print(
    "\n".join(
        line
        for line in lscpu.splitlines()
        if "NUMA" in line or "Thread" in line or "Model name" in line
    )
)
