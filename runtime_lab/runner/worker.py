"""The GPU worker program (`python -m runtime_lab.runner.worker`): owns CUDA, runs one job at a time."""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import ctypes.util
import gc
import json
import os
import re
import sys
import threading
import time
import traceback
from multiprocessing import AuthenticationError
from multiprocessing.connection import Client
from typing import Any

from runtime_lab.runner.worker_progress import Phase, Progress
from runtime_lab.runner.worker_progress import send as _send

AUTHKEY_ENV = "RUNTIME_LAB_AUTHKEY"
MAX_ERROR_CHARS = 4000


def _watch_parent(parent_pid: int) -> None:
    """Exit when the server that started us is gone, so no orphan keeps holding GPU memory."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent_pid:
            os._exit(0)


def _gib(n: float) -> str:
    return f"{n / 2**30:,.2f} GiB"


def _oom_figures(exc: BaseException, text: str) -> str | None:
    """'tried to allocate X on D, Y free' for a CUDA or host allocation failure, else None."""
    import psutil
    import torch

    cpu = "can't allocate memory" in text  # c10's DefaultCPUAllocator raises a RuntimeError
    if not (isinstance(exc, torch.OutOfMemoryError) or cpu):
        return None
    asked = re.search(r"[Tt]ried to allocate ([0-9.]+) ?(bytes|[KMGT]iB)", text)
    needed = "an unknown amount"
    if asked:
        power = {"bytes": 0, "KiB": 1, "MiB": 2, "GiB": 3, "TiB": 4}[asked.group(2)]
        needed = _gib(float(asked.group(1)) * 1024**power)
    if cpu:
        available = psutil.virtual_memory().available
        return f"tried to allocate {needed} on cpu; {_gib(available)} of host RAM available"
    free, total = torch.cuda.mem_get_info()
    return f"tried to allocate {needed} on cuda; {_gib(free)} of {_gib(total)} GPU memory free"


def _describe(exc: BaseException) -> tuple[str, bool]:
    """A readable reason, and whether the CUDA context may be broken (then the worker restarts)."""
    text = f"{type(exc).__name__}: {exc}".strip()
    try:
        figures = _oom_figures(exc, text)
    except Exception:  # e.g. a broken CUDA context: the reason must still get out
        figures = None
    if figures:
        return f"out of memory: {figures}. {text}"[:MAX_ERROR_CHARS], False
    broken = "CUDA error" in text or type(exc).__name__ == "AcceleratorError"
    tail = "".join(traceback.format_exception(exc)[-3:])
    return (text + "\n" + tail)[:MAX_ERROR_CHARS], broken


def _probe() -> dict[str, Any]:
    """The process probe (lab/probe.py); a failing probe costs neither the job nor the worker."""
    from runtime_lab.lab import probe

    try:
        return probe.take()
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {exc}"[:MAX_ERROR_CHARS]}


def start_up() -> tuple[str, dict[str, Any]]:
    """Threads, tool tracking, the compiler's warm-up and the baseline probe, before the hello:
    a spare that has said hello has CUDA initialised. Returns why the thread count, and the
    baseline with what the start cost (seconds since the process began, at each step). The
    local worker's main and the Ray actor (rayactor.py) both start with it."""
    import psutil
    import torch

    # Dynamo and Inductor take seconds to import: pay that while the worker (or spare) starts,
    # not in the first compiling job a user waits for
    import torch._dynamo
    import torch._inductor.config

    # fusion's second clock: on the H100 the first mode's took 0.81 s, the others 0.18-0.19 s
    import torch.utils.benchmark

    from runtime_lab import envvars
    from runtime_lab.env import choose_torch_threads
    from runtime_lab.lab import prewarm, tooling, vec_isa
    from runtime_lab.workloads import user

    # from when the server asked for us (a fork or a process of our own), else our process's
    # start (the Ray actor's; whole seconds plus clock ticks, so about a second either way)
    try:
        began = float(os.environ.pop(envvars.ASKED_AT_ENV))
    except (KeyError, ValueError):
        began = psutil.Process().create_time()
    start: dict[str, Any] = {"imported_at_s": round(time.time() - began, 3)}
    threads, source = choose_torch_threads()
    torch.set_num_threads(threads)
    tooling.install()
    tooling.take()  # a sanitizer on from the environment shows up after the first job
    gpu = torch.cuda.is_available()
    if gpu:
        torch.cuda.init()
    start["cuda_ready_at_s"] = round(time.time() - began, 3) if gpu else None
    # the compiler's one-time set-up, before the baseline probe: baseline and jobs see one state.
    # GPU workers only: there it saves a job more than it costs the start (lab/prewarm.py);
    # on the CPU it cost about what it saved, and a CPU lane's longer start held up GPU jobs
    if prewarm.INHERITED is not None:  # forked from a zygote that warmed on the CPU
        start["zygote_prewarm"] = prewarm.INHERITED["prewarm"]
        start["zygote_prewarm_s"] = prewarm.INHERITED["prewarm_s"]
    if gpu and envvars.value(envvars.PREWARM_ENV):
        start.update(prewarm.compiler(torch.device("cuda")))
    else:
        start["prewarm"] = f"off ({envvars.PREWARM_ENV}=0)" if gpu else "off (a CPU worker)"
    if not gpu and prewarm.INHERITED is None:  # a CPU worker of its own: no zygote answered it
        start["vec_isa_s"] = round(vec_isa.probe("cpu") or 0, 3)
    user.load_from_env()  # the user's workload files: imported here, never in the server
    settle_heap()  # before the baseline probe: baseline and jobs see one state
    start["gc_frozen_objects"] = gc.get_freeze_count()
    probe = _probe()
    start["ready_at_s"] = round(time.time() - began, 3)
    return source, {**probe, **start}


def run_job(
    conn,
    job_id: str,
    spec_data: dict[str, Any],
    baseline: dict[str, Any] | None = None,
    reuse: dict[str, Any] | None = None,
) -> bool:
    """Run one job and send its outcome; returns False when the worker must restart.
    `reuse`: what the server found to take from an earlier stored run (lab.base.Context)."""
    from runtime_lab import registry
    from runtime_lab.lab import base, tooling
    from runtime_lab.lab.workload_check import WorkloadRejected
    from runtime_lab.results import to_plain
    from runtime_lab.runner import probe as probe_figures
    from runtime_lab.spec import RunSpec, SpecError
    from runtime_lab.workloads import user

    # monotonic stamps (CLOCK_MONOTONIC, one clock for every process on the host): the server
    # checks with them that jobs never overlap; wall-clock stamps are for people
    started_mono, started = time.monotonic(), time.time()
    progress = Progress(conn, job_id, started_mono)
    progress.mark("process probe")
    outcome: dict[str, Any] = {
        "op": "result",
        "job_id": job_id,
        "started_at": started,
        "started_mono": started_mono,
        # first of all: what this process's state does to host-side times right now
        "process_probe": probe_figures.compare(_probe(), baseline),
    }
    keep_going = True
    progress.mark("starting the job")  # the spec check, the workload's check, the memory check
    try:
        spec = RunSpec.from_dict(spec_data)
        user.check_job(spec.options, outcome)
        device = base.resolve_device(spec)
        module = registry.run_module(spec.experiment)
        base.check_fits(module.estimate_bytes(spec), device)
        outcome["device"] = str(device)
        ctx = base.Context(device, progress, Phase(conn, job_id, progress), dict(reuse or {}))
        result = module.run(spec, ctx)
        outcome.update(status="done", result=to_plain(result))
    except (base.Refused, SpecError) as exc:
        outcome.update(status="refused", error=str(exc))
    except WorkloadRejected as exc:  # the user's code failed its check: one line, no traceback
        outcome.update(status="failed", error=str(exc))
    except Exception as exc:  # a job's failure costs that job, never the worker loop
        reason, broken = _describe(exc)
        outcome.update(status="failed", error=reason)
        keep_going = not broken
    finally:
        progress.mark("releasing memory")
        # a tool turned on leaves the process slower for later jobs: the server replaces us
        outcome["disturbed"] = tooling.take()
        outcome["memory_after"] = _release_memory()
        _prune_artefacts()
    outcome["finished_at"], outcome["finished_mono"] = time.time(), time.monotonic()
    outcome["stages"] = progress.timeline(outcome["finished_mono"])
    _send(conn, outcome)
    return keep_going


def _prune_artefacts() -> None:
    """Keep the data dir's traces and snapshots bounded; a full or read-only disk is no reason
    to fail a job that already has its result."""
    from runtime_lab import config

    with contextlib.suppress(OSError):
        config.prune_artefacts(config.data_dir())


def settle_heap() -> None:
    """Keep what start-up imported out of every later garbage collection (gc.freeze): with
    torch, Dynamo and Inductor loaded, the heap holds ~440 k objects, and each full collection
    (one after every job, more in the allocator's scenarios and Python's own) walked them all,
    0.23 s each (2-core CPU), 2 µs once frozen. In a zygote, before it forks: a child's
    collection then no longer writes to every inherited object, copying their pages."""
    gc.collect()  # what is garbage now is freed, not frozen for good
    gc.freeze()


def _trim_heap() -> None:
    """Give freed heap pages back to the OS (glibc only; a no-op elsewhere).

    After the first large tensor is freed, glibc raises its mmap threshold, so later tensors of
    that size come from the heap, and freed heap memory stays in the process: a CPU worker's RSS
    then grew 110 MiB over six identical jobs on a 2-core CI machine with nothing kept."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    trim(0)


def _release_memory() -> dict[str, int]:
    """Free what the job left behind; returns what is still held (checked by the tests)."""
    import psutil
    import torch

    gc.collect()
    _trim_heap()
    held = {"rss_bytes": psutil.Process().memory_info().rss}
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        # cuBLAS keeps a workspace per (handle, stream) in the caching allocator (32 MiB each
        # on the H200) for the life of the process: every job's new side streams would add
        # theirs (160 MiB per streams job, measured). No captured graph here holds a matmul.
        clear_workspaces = getattr(torch._C, "_cuda_clearCublasWorkspaces", None)
        if clear_workspaces is not None:
            clear_workspaces()
        torch.cuda.empty_cache()
        held["cuda_allocated_bytes"] = torch.cuda.memory_allocated()
        held["cuda_reserved_bytes"] = torch.cuda.memory_reserved()
    return held


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Runtime Lab GPU worker (started by the server)")
    parser.add_argument("--address", required=True, help="host:port of the server's listener")
    args = parser.parse_args(argv)
    host, port = args.address.rsplit(":", 1)
    key = bytes.fromhex(os.environ.pop(AUTHKEY_ENV, ""))
    try:
        conn = Client((host, int(port)), authkey=key)
    except (OSError, EOFError, AuthenticationError):
        return 0  # the server gave up on us (closed or restarted) before we were up
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()
    from runtime_lab.env import fingerprint
    from runtime_lab.workloads import user

    threads_source, baseline = start_up()
    try:
        hello = {"op": "hello", "pid": os.getpid(), "env": fingerprint(threads_source)}
        _send(conn, {**hello, "probe": baseline, "workloads": user.LOADED_HERE})
    except OSError:
        return 0
    while True:
        try:
            message = json.loads(conn.recv_bytes())
        except (EOFError, OSError):
            return 0  # the server went away
        except ValueError:
            continue  # not JSON (e.g. a pickle): read as data, never run; ignored
        if not isinstance(message, dict):
            continue
        if message.get("op") == "shutdown":
            return 0
        reuse = message.get("reuse") if isinstance(message.get("reuse"), dict) else None
        if message.get("op") == "run" and not run_job(
            conn, message["job_id"], message["spec"], baseline, reuse
        ):
            return 3


if __name__ == "__main__":
    sys.exit(main())
