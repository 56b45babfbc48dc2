"""The worker zygote (`python -m runtime_lab.runner.zygote`): imports once, forks each worker."""

# Why: a worker's start was mostly imports. On the H100 host (2026-12-05) a fresh worker said
# hello 12.1 s after it began, 8.6 s of it importing torch, Dynamo and Inductor; a user who
# pressed Run again at once waited 12.7-15.4 s for the spare before the job began. Forked from
# this process, a worker has them already. The zygote never touches CUDA (a CUDA context does
# not survive fork): each child initialises its own, with the CUDA_VISIBLE_DEVICES it is given.

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from multiprocessing.connection import Client

from runtime_lab import envvars
from runtime_lab.envvars import ZYGOTE_KEY_ENV as KEY_ENV
from runtime_lab.runner.worker_progress import send as _send

REAP_EVERY_S = 0.1


def preload() -> None:
    """What every worker imports before its hello, and each experiment's run module (a job's)."""
    import torch
    import torch._dynamo
    import torch._inductor.config

    import runtime_lab.env
    import runtime_lab.lab.prewarm
    import runtime_lab.lab.probe
    import runtime_lab.lab.tooling
    import runtime_lab.runner.worker
    import runtime_lab.workloads.user
    from runtime_lab import registry

    for name in registry.EXPERIMENTS:
        registry.run_module(name)
    # Not torch.utils.benchmark: its timer module asked torch.cuda.is_available() at import in
    # the torch releases before the one on the CPU machine (read in PyTorch's source), which
    # makes torch refuse CUDA to every forked child, the H100 host's failure. Workers import it
    # after the fork (worker.start_up).
    if envvars.value(envvars.PREWARM_ENV):
        runtime_lab.lab.prewarm.in_zygote()
    if torch.cuda.is_initialized():  # a guard for a later import that initialises CUDA
        raise RuntimeError("CUDA was initialised before fork: the workers could not use it")
    runtime_lab.runner.worker.settle_heap()  # the children inherit it frozen
    _fork_check()


def _fork_check() -> None:
    """Fork one child that only asks whether torch will let it start CUDA. On the H100 host
    (2026-12-05) every forked worker failed "Cannot re-initialize CUDA in forked subprocess":
    something in this process had asked CUDA about the device (torch then marks each forked
    child a bad fork) without torch.cuda.is_initialized() saying so. Failing here sends the
    server back to workers of their own."""
    from runtime_lab.lab.prewarm import gpu_driver_present

    if gpu_driver_present() and child_refused_cuda():
        raise RuntimeError(
            "a child forked from the zygote could not start CUDA (torch calls it a bad fork): "
            "workers start as processes of their own"
        )


def child_refused_cuda() -> bool:
    """Fork a child that only asks whether torch would let it start CUDA (a bad fork: no)."""
    import torch

    pid = os.fork()
    if pid == 0:
        os._exit(2 if torch.cuda._is_in_bad_fork() else 0)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) != 0


def _child(conn, request: dict) -> None:
    """In the forked worker: the server's environment as it is now, then the worker's main."""
    conn.close()  # the zygote's pipe belongs to the zygote
    os.environ.clear()
    os.environ.update(request["env"])
    from runtime_lab.runner import worker

    code = 1
    try:
        code = worker.main(["--address", request["address"]]) or 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _reap(conn) -> None:
    """Tell the server how each child ended, as Popen.returncode would (-N: killed by N)."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        _send(conn, {"op": "exited", "pid": pid, "code": code})


def serve(conn) -> None:
    while True:
        if conn.poll(REAP_EVERY_S):
            message = json.loads(conn.recv_bytes())
            if message.get("op") == "shutdown":
                return
            if message.get("op") == "fork":
                pid = os.fork()
                if pid == 0:
                    _child(conn, message)
                _send(conn, {"op": "forked", "id": message["id"], "pid": pid})
        _reap(conn)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Runtime Lab worker zygote (started by the server)"
    )
    parser.add_argument("--address", required=True, help="host:port of the server's listener")
    args = parser.parse_args(argv)
    host, port = args.address.rsplit(":", 1)
    key = bytes.fromhex(os.environ.pop(KEY_ENV, ""))
    try:
        conn = Client((host, int(port)), authkey=key)
    except Exception:
        return 0  # the server gave up on us before we were up
    try:
        preload()
        _send(conn, {"op": "ready", "pid": os.getpid()})
        serve(conn)
    except (EOFError, OSError):
        return 0  # the server went away: our children see their pipes close and exit
    except Exception as exc:
        _send(conn, {"op": "failed", "error": f"{type(exc).__name__}: {exc}"[:2000]})
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
