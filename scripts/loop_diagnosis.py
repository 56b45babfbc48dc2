"""Which part of the worker's set-up slows a launch-bound loop: each step in one process, then jobs.

Run on a CUDA machine: python3 scripts/loop_diagnosis.py (docs/gpu-evidence.md, issue 12)."""

import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch

from runtime_lab import registry
from runtime_lab.lab.timing import measure_loop
from runtime_lab.lab.workload import pointwise
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

dev = torch.device("cuda:0")
x = torch.randn(256, 256, device=dev)
y = torch.randn_like(x)


def loop(tag: str) -> None:
    fn = lambda: pointwise(x, y)  # noqa: E731
    for _ in range(50):
        fn()
    runs = sorted(measure_loop(fn, dev, 200).samples_us)
    print(f"{tag:<48} eager 256² loop {runs[10]:7.2f} µs/call (min {runs[0]:.2f})", flush=True)


loop("clean")
from runtime_lab.lab import probe, tooling  # noqa: E402

tooling.install()
loop("after tooling.install()")
print("probe", probe.take())
loop("after probe.take()")
torch.set_num_threads(15)
loop("after set_num_threads(15)")
idle = subprocess.Popen(
    [
        sys.executable,
        "-c",
        "import torch,time; torch.zeros(1,device='cuda'); print('up',flush=True); time.sleep(120)",
    ],
    stdout=subprocess.PIPE,
    text=True,
)
idle.stdout.readline()
loop("with a second process holding an idle context")
idle.kill()
time.sleep(1)
loop("after it exited")
for spare in (False, True):
    jobs = JobManager(data_dir=tempfile.mkdtemp(prefix="diag-"), timeout_s=300, spare=spare)
    for i in range(2):
        spec = build_spec(
            "fusion",
            "256x256",
            device="cuda",
            options={"modes": "eager,cuda-graph", "compile_latency": False},
        )
        run = jobs.wait(jobs.submit(spec), 300).as_run()
        loops = registry.summary(run)["loop_us_per_call"]
        print(
            f"job {i} spare={spare}: loop {loops}  probe flagged {run['process_probe'].get('flagged')} worker {run['worker']}",
            flush=True,
        )
        time.sleep(3)
    jobs.close()
