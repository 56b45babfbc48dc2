"""Which part of the worker's set-up slows a launch-bound loop: each step in one process, then jobs.

Run on a CUDA machine: python -m scripts.evidence.loop_diagnosis (docs' evidence log, issue 12)."""

import subprocess
import sys
import time

import torch

from benchmarks.harness import Bench
from runtime_lab.lab import probe, tooling
from runtime_lab.lab.timing import measure_loop
from runtime_lab.spec import build_spec
from runtime_lab.workloads.pointwise.op import pointwise

dev = torch.device("cuda:0")
x = torch.randn(256, 256, device=dev)
y = torch.randn_like(x)
IDLE_CONTEXT = (
    "import torch,time; torch.zeros(1,device='cuda'); print('up',flush=True); time.sleep(120)"
)


def loop(tag: str) -> None:
    fn = lambda: pointwise(x, y)  # noqa: E731
    for _ in range(50):
        fn()
    runs = sorted(measure_loop(fn, dev, 200).samples_us)
    print(f"{tag:<48} eager 256² loop {runs[10]:7.2f} µs/call (min {runs[0]:.2f})", flush=True)


def in_process() -> None:
    loop("clean")
    tooling.install()
    loop("after tooling.install()")
    print("probe", probe.take())
    loop("after probe.take()")
    torch.set_num_threads(15)
    loop("after set_num_threads(15)")
    idle = subprocess.Popen([sys.executable, "-c", IDLE_CONTEXT], stdout=subprocess.PIPE, text=True)
    idle.stdout.readline()
    loop("with a second process holding an idle context")
    idle.kill()
    time.sleep(1)
    loop("after it exited")


def as_jobs() -> None:
    options = {"modes": "eager,cuda-graph", "compile_latency": False}
    spec = build_spec("fusion", "256x256", device="cuda", options=options)
    for spare in (False, True):
        with Bench("cuda", spare=spare, timeout_s=300) as bench:
            for i in range(2):
                finished = bench.run(spec)
                loops = (finished.figures or {}).get("loop_us_per_call")
                flagged = (finished.run.process_probe or {}).get("flagged")
                print(
                    f"job {i} spare={spare}: loop {loops}  probe flagged {flagged} "
                    f"worker {finished.run.worker}",
                    flush=True,
                )
                time.sleep(3)


if __name__ == "__main__":
    in_process()
    as_jobs()
