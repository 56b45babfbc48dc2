"""Issue 17's run on a two-GPU host: the pool's two GPU workers side by side.

(1) fusion on cuda:0 and cuda:1 submitted together: overlapping worker intervals, both correct,
each GPU's allocated memory back to baseline; (2) two `auto` jobs go to different GPUs; (3) one
spec on both GPUs, compared; (4) a crash on cuda:1 beside a long cuda:0 job, which completes.
Usage: python3 scripts/two_gpu_evidence.py [SHAPE]   (exits 2 on a host with fewer than 2 GPUs)
"""

import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

SHAPE = sys.argv[1] if len(sys.argv) > 1 else "8192x8192"
MODES = ["eager", "inductor"]


def fusion(device: str, shape: str = SHAPE):
    options = {"modes": MODES, "compile_trace": False}
    return build_spec("fusion", shape, device=device, options=options)


def overlap(a, b) -> float:
    return min(a.worker_finished, b.worker_finished) - max(a.worker_started, b.worker_started)


def say(name: str, job) -> None:
    memory = job.memory_after or {}
    print(
        f"  {name}: {job.state} on {job.lane} ({job.device}) pid {(job.worker or {}).get('pid')}"
        f" run #{job.run_id} allocated after {memory.get('cuda_allocated_bytes')} B"
        f" {job.error or ''}"
    )


data = tempfile.mkdtemp(prefix="two-gpu-")
jobs = JobManager(data_dir=data, timeout_s=900)
try:
    gpus = [lane for lane in jobs.lanes if lane.plan.kind == "gpu"]
    if len(gpus) < 2:
        print(f"needs two GPUs; this host's lanes: {[lane.name for lane in jobs.lanes]}")
        sys.exit(2)
    print("== (1) cuda:0 and cuda:1 together")
    together = [jobs.submit(fusion(d)) for d in ("cuda:0", "cuda:1")]  # both queued, then waited
    a, b = [jobs.wait(job_id, 900) for job_id in together]
    say("cuda:0 job", a)
    say("cuda:1 job", b)
    print(f"  overlap {overlap(a, b):.2f} s")
    print("== (2) two auto jobs together")
    ids = [jobs.submit(fusion("auto", "4096x4096")), jobs.submit(fusion("auto", "4096x4097"))]
    for i, job_id in enumerate(ids):
        say(f"auto #{i + 1}", jobs.wait(job_id, 900))
    print("== (3) the (1) runs compared (same spec but the device)")
    compare = [sys.executable, "-m", "runtime_lab", "--data-dir", data, "compare"]
    print(
        subprocess.run(
            [*compare, str(a.run_id), str(b.run_id)], capture_output=True, text=True
        ).stdout
    )
    print("== (4) a crash on cuda:1 beside a long cuda:0 job")
    long_id = jobs.submit(fusion("cuda:0", "16384x16384"))
    crash = build_spec("selftest", "8", device="cpu", options={"behaviour": "crash"})
    crashed = jobs.wait(jobs.submit(crash, target="cuda:1"), 900)
    say("crash on cuda:1", crashed)
    say("long cuda:0 job", jobs.wait(long_id, 900))
    print(
        "  restarts per lane:", {lane["lane"]: lane["restarts"] for lane in jobs.status()["lanes"]}
    )
finally:
    jobs.close()
