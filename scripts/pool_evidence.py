"""The worker pool on a GPU host: a CPU job no longer waits behind a long GPU job.

Phase A runs the GPU job alone; phase B submits the same GPU job and, right after, a CPU job:
their worker intervals must overlap, and the GPU job's steady-state figures are printed beside
phase A's (does a CPU job alongside disturb them?). nvidia-smi shows which pids hold a CUDA
context: the CPU worker must not. Usage: python scripts/pool_evidence.py [GPU_SHAPE]
"""

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runtime_lab.fusion.figures import mode_figures
from runtime_lab.registry import result_from_record
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

GPU_SHAPE = sys.argv[1] if len(sys.argv) > 1 else "8192x8192"
GPU_MODES = ["eager", "inductor", "inductor-reduce-overhead"]


def gpu_spec():
    options = {"modes": GPU_MODES, "compile_trace": False}
    return build_spec("fusion", GPU_SHAPE, device="auto", options=options)


def cpu_spec():
    options = {"modes": ["eager", "inductor"], "compile_trace": False}
    return build_spec("fusion", "512x512", device="cpu", options=options)


def cuda_pids() -> str:
    query = ["nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader"]
    try:
        done = subprocess.run(query, capture_output=True, text=True)
    except OSError as exc:
        return f"(nvidia-smi: {exc.strerror})"
    return done.stdout.strip().replace("\n", "; ") or "(none)"


def show(job, t0: float) -> None:
    start, end = job.worker_started - t0, job.worker_finished - t0
    print(
        f"  {job.spec.label}: {job.state} on lane {job.lane} ({job.device}), pid {job.worker['pid']}"
    )
    print(f"    worker interval {start:7.2f} s → {end:7.2f} s ({end - start:.2f} s)")
    print(f"    alongside: {[a['lane'] + ' ' + a['label'] for a in job.worker['alongside']]}")
    print(f"    memory after: {job.memory_after}")
    print(
        f"    env lane={job.env.get('lane')} gpus={[g['name'] for g in job.env.get('gpus') or []]}"
    )
    if job.state != "done":
        print("    error:", job.error)
        return
    result = result_from_record("fusion", job.as_run()["result"])
    for fig in mode_figures(result):
        keys = ("steady_state_ms", "iqr_ms", "device_ms", "host_ms", "loop_us_per_call")
        print(f"    {fig['mode']:<16}", {k: fig.get(k) for k in keys})


data = os.environ.get("RUNTIME_LAB_DATA_DIR") or tempfile.mkdtemp(prefix="pool-evidence-")
jobs = JobManager(data_dir=data, timeout_s=900)
try:
    deadline = time.monotonic() + 300
    while not all(lane.env for lane in jobs.lanes) and time.monotonic() < deadline:
        time.sleep(0.5)
    print(
        "CPU worker threads:",
        [lane.plan.env.get("RUNTIME_LAB_TORCH_THREADS") for lane in jobs.lanes],
    )
    for lane in jobs.status()["lanes"]:
        print(
            f"lane {lane['lane']}: {lane['worker_state']} pid {lane['worker_pid']} "
            f"type {lane['device_type']}"
        )
    print("CUDA contexts (pid, memory) with both workers up:", cuda_pids())
    print("\n== phase A: the GPU job alone")
    t0 = time.monotonic()
    alone = jobs.wait(jobs.submit(gpu_spec()), 900)
    show(alone, t0)
    print("\n== phase B: the same GPU job, then a CPU job submitted right after")
    t0 = time.monotonic()
    gpu_id = jobs.submit(gpu_spec())
    time.sleep(1.0)  # the GPU job is running when the CPU job arrives
    cpu_id = jobs.submit(cpu_spec())
    time.sleep(3.0)
    print("  CUDA contexts while both run:", cuda_pids())
    gpu, cpu = jobs.wait(gpu_id, 900), jobs.wait(cpu_id, 900)
    show(gpu, t0)
    show(cpu, t0)
    overlap = min(gpu.worker_finished, cpu.worker_finished) - max(
        gpu.worker_started, cpu.worker_started
    )
    print(f"\n  overlap of the two worker intervals: {overlap:.2f} s")
    print(f"  CPU job waited {cpu.worker_started - t0 - 1.0:.2f} s after its submit to start")
finally:
    jobs.close()
