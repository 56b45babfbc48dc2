"""Issue 17's run on a two-GPU host: the pool's two GPU workers side by side.

(1) fusion on cuda:0 and cuda:1 submitted together: overlapping worker intervals, both correct,
each GPU's allocated memory back to baseline; (2) two `auto` jobs go to different GPUs; (3) one
spec on both GPUs, compared; (4) a crash on cuda:1 beside a long cuda:0 job, which completes.
Usage: python -m scripts.evidence.two_gpu_evidence [SHAPE]   (exits 2 with fewer than 2 GPUs)
"""

import subprocess
import sys

from benchmarks.harness import Bench, Finished
from runtime_lab.spec import build_spec

SHAPE = sys.argv[1] if len(sys.argv) > 1 else "8192x8192"
MODES = ["eager", "inductor"]


def fusion(device: str, shape: str = SHAPE):
    options = {"modes": MODES, "compile_trace": False}
    return build_spec("fusion", shape, device=device, options=options)


def overlap(a: Finished, b: Finished) -> float:
    a, b = a.job, b.job
    return min(a.worker_finished, b.worker_finished) - max(a.worker_started, b.worker_started)


def say(name: str, finished: Finished) -> None:
    job = finished.job
    memory = job.memory_after or {}
    print(
        f"  {name}: {job.state} on {job.lane} ({job.device}) pid {(job.worker or {}).get('pid')}"
        f" run #{job.run_id} allocated after {memory.get('cuda_allocated_bytes')} B"
        f" {job.error or ''}"
    )


def main() -> int:
    with Bench("cuda", timeout_s=900) as bench:
        lanes = bench.lanes()
        if len([lane for lane in lanes if lane["kind"] == "gpu"]) < 2:
            print(f"needs two GPUs; this host's lanes: {[lane['lane'] for lane in lanes]}")
            return 2
        print("== (1) cuda:0 and cuda:1 together")
        together = [bench.submit(fusion(d)) for d in ("cuda:0", "cuda:1")]  # both queued
        a, b = [bench.wait(job_id) for job_id in together]
        say("cuda:0 job", a)
        say("cuda:1 job", b)
        print(f"  overlap {overlap(a, b):.2f} s")
        print("== (2) two auto jobs together")
        ids = [bench.submit(fusion("auto", "4096x4096")), bench.submit(fusion("auto", "4096x4097"))]
        for i, job_id in enumerate(ids):
            say(f"auto #{i + 1}", bench.wait(job_id))
        print("== (3) the (1) runs compared (same spec but the device)")
        compare = [
            sys.executable,
            "-m",
            "runtime_lab",
            "--data-dir",
            str(bench.data_dir),
            "compare",
        ]
        ids = [str(a.job.run_id), str(b.job.run_id)]
        print(subprocess.run([*compare, *ids], capture_output=True, text=True).stdout)
        print("== (4) a crash on cuda:1 beside a long cuda:0 job")
        long_id = bench.submit(fusion("cuda:0", "16384x16384"))
        crash = build_spec("selftest", "8", device="cpu", options={"behaviour": "crash"})
        say("crash on cuda:1", bench.wait(bench.submit(crash, target="cuda:1"), expect_done=False))
        say("long cuda:0 job", bench.wait(long_id))
        print("  restarts per lane:", {lane["lane"]: lane["restarts"] for lane in bench.lanes()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
