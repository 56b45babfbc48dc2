"""The worker pool on a GPU host: a CPU job runs beside a long GPU job and leaves its figures alone."""

from __future__ import annotations

import subprocess
import time
from typing import Any

from benchmarks.harness import Bench, Finished
from benchmarks.recipe import Recipe, Settings, shape
from runtime_lab.results import stats
from runtime_lab.spec import build_spec

ARRIVES_AFTER_S = 1.0  # the GPU job is running when the CPU job arrives


def cuda_pids() -> str:
    """Which processes hold a CUDA context (pid, memory), as nvidia-smi says."""
    query = ["nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader"]
    try:
        done = subprocess.run(query, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"(nvidia-smi: {exc})"
    return done.stdout.strip().replace("\n", "; ") or "(none)"


def interval(finished: Finished, t0: float) -> dict[str, Any]:
    """Where and when the worker ran the job (seconds after t0, one monotonic clock)."""
    job = finished.job
    start = None if job.worker_started is None else job.worker_started - t0
    end = None if job.worker_finished is None else job.worker_finished - t0
    alongside = [a["lane"] + " " + a["label"] for a in (job.worker or {}).get("alongside", [])]
    return {
        "job": job.spec.label[:40],
        "state": job.state,
        "lane": job.lane,
        "pid": (job.worker or {}).get("pid"),
        "worker_start_s": start,
        "worker_end_s": end,
        "torch_threads": (job.env or {}).get("torch_threads"),
        "alongside": ", ".join(alongside) or "-",
    }


def steady_rows(tag: str, finished: Finished) -> list[dict[str, Any]]:
    rows = []
    for mode in finished.result.modes if finished.done else ():
        if mode.timing is None:
            continue
        primary, host = stats(mode.timing.primary_ms), stats(mode.timing.host_ms)
        rows.append(
            {
                "phase": tag,
                "mode": mode.mode,
                "median_ms": primary.median if primary else None,
                "iqr_ms": primary.iqr if primary else None,
                "host_ms": host.median if host else None,
                "loop_us_per_call": mode.loop_us_per_call,
            }
        )
    return rows


def measure(bench: Bench, settings: Settings) -> dict[str, Any]:
    """Phase A runs the GPU job alone; phase B submits it again and a CPU job right after:
    their worker intervals must overlap, the GPU job's figures stay as in A, and nvidia-smi
    shows a CUDA context for the GPU worker only."""
    gpu_options = {
        "modes": ["eager", "inductor", "inductor-reduce-overhead"],
        "compile_trace": False,
    }
    gpu = build_spec("fusion", settings.text("gpu_shape"), device="cuda", options=gpu_options)
    cpu_options = {"modes": ["eager", "inductor"], "compile_trace": False}
    cpu = build_spec("fusion", settings.text("cpu_shape"), device="cpu", options=cpu_options)
    bench.wait_ready(every_lane=True)
    bench.show("lanes", bench.lanes())
    bench.note(f"CUDA contexts (pid, memory) with every worker up: {cuda_pids()}")
    t0 = time.monotonic()
    alone = bench.run(gpu)
    bench.show("phase A: the GPU job alone", [interval(alone, t0)])
    t0 = time.monotonic()
    gpu_id = bench.submit(gpu)
    time.sleep(ARRIVES_AFTER_S)
    cpu_id = bench.submit(cpu)
    time.sleep(3.0)
    bench.note(f"CUDA contexts while both run: {cuda_pids()}")
    beside, cpu_job = bench.wait(gpu_id), bench.wait(cpu_id)
    bench.show(
        "phase B: the GPU job, and a CPU job submitted after it",
        [interval(beside, t0), interval(cpu_job, t0)],
    )
    bench.show(
        "the GPU job's steady state, alone and beside the CPU job",
        steady_rows("alone", alone) + steady_rows("beside", beside),
    )
    a, b = beside.job, cpu_job.job
    if None in (a.worker_started, a.worker_finished, b.worker_started, b.worker_finished):
        return {"overlap_s": None}
    overlap_s = min(a.worker_finished, b.worker_finished) - max(a.worker_started, b.worker_started)
    waited_s = b.worker_started - t0 - ARRIVES_AFTER_S
    bench.note(
        f"overlap of the two worker intervals: {overlap_s:.2f} s; the CPU job waited {waited_s:.2f} s to start"
    )
    if overlap_s <= 0:
        bench.problem("the CPU job did not run alongside the GPU job")
    return {"overlap_s": overlap_s, "cpu_job_waited_s": waited_s}


RECIPE = Recipe(
    name="pool",
    summary="a CPU job runs beside a long GPU job (overlapping workers), which keeps its figures",
    measure=measure,
    devices=("cuda",),
    settings={
        "gpu_shape": shape("8192x8192", "the long GPU job's shape"),
        "cpu_shape": shape("512x512", "the CPU job's shape"),
    },
    replaces="scripts/pool_evidence.py",
)
