"""The server's side of the zygote: start it once, ask it for workers, learn how each ended."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from multiprocessing.connection import Listener
from typing import Any

import psutil

from runtime_lab.runner.zygote import KEY_ENV

# the environment a process reads while it imports torch: a worker whose own differs is not
# forked (it would get the zygote's import-time settings) but started as a process of its own.
# The lab's per-worker values (cache dirs, visible GPUs, RUNTIME_LAB_*) are read later.
IMPORT_TIME = ("TORCH", "PYTORCH", "TRITON", "INDUCTOR", "OMP_", "MKL_", "CUDA_LAUNCH")
READ_LATER = {"TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR"}
WAIT_EVERY_S = 0.02


def import_env(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith(IMPORT_TIME) and k not in READ_LATER}


class Zygote:
    """One per server: started with the first worker, it forks every later one (0.1 s where a
    worker's own start took 4-12 s). Fails soft: if it can't start or dies, workers start as
    processes of their own, as before."""

    def __init__(self):
        self.lock = threading.Lock()  # dispatcher threads, spare threads and close() share it
        self.proc: subprocess.Popen | None = None
        self.conn = None
        self.env: dict[str, str] = {}
        self.exits: dict[int, int] = {}
        self.broken: str | None = None
        self.no_forks: str | None = None  # why it forks no more (it still reports exits)
        self._ids = 0

    def usable(self, env: dict[str, str]) -> bool:
        if self.broken is not None or self.no_forks is not None:
            return False
        return self.proc is None or import_env(env) == self.env

    def fork(self, env: dict[str, str], address: str, timeout_s: float) -> int | None:
        """A new worker's pid, forked with `env` and told to connect to `address`; None when
        the zygote can't (the caller starts a process of its own)."""
        with self.lock:
            if self.broken is not None:  # broken since the caller asked usable(): no fork
                return None
            try:
                if self.proc is None:
                    self._start(env, timeout_s)
                self._ids += 1
                self._send({"op": "fork", "id": self._ids, "env": env, "address": address})
                deadline = time.monotonic() + timeout_s
                while time.monotonic() < deadline:
                    message = self._receive(deadline - time.monotonic())
                    if message and message.get("op") == "forked" and message["id"] == self._ids:
                        return int(message["pid"])
                raise TimeoutError("no fork within the start timeout")
            except Exception as exc:  # any failure: mark it broken, workers start on their own
                self._break(f"{type(exc).__name__}: {exc}")
                return None

    def give_up(self, why: str) -> None:
        """No more forks (later workers start on their own). The zygote stays up for the
        workers it has forked: it reports how they end."""
        with self.lock:
            self.no_forks = self.no_forks or why

    def exit_code(self, pid: int) -> int | None:
        """How the worker ended (Popen.returncode's meaning), None while it runs."""
        with self.lock:
            try:
                while self.conn is not None and self.conn.poll(0):
                    self._receive(0)
            except (EOFError, OSError, ValueError):  # the zygote died: later workers start alone
                self.broken = self.broken or "the zygote stopped answering"
            if pid in self.exits:
                return self.exits[pid]
            gone = self.broken is not None or self.conn is None
        if gone and not running(pid):
            return -signal.SIGKILL  # its zygote is gone, and with it the exit status
        return None

    def _start(self, first: dict[str, str], timeout_s: float) -> None:
        """Start the zygote with the first worker's environment (its import-time part counts)."""
        key = secrets.token_bytes(32)
        listener = Listener(("127.0.0.1", 0), authkey=key)
        host, port = listener.address
        env = {**first, KEY_ENV: key.hex()}
        self.env = import_env(first)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "runtime_lab.runner.zygote", "--address", f"{host}:{port}"],
            env=env,
            stdin=subprocess.DEVNULL,
        )
        try:
            box: dict[str, Any] = {}
            accept = threading.Thread(
                target=lambda: box.update(conn=listener.accept()), daemon=True
            )
            accept.start()
            accept.join(timeout_s)
        finally:
            listener.close()
        if "conn" not in box:
            raise TimeoutError(f"the zygote did not connect within {timeout_s:.0f} s")
        self.conn = box["conn"]
        ready = self._receive(timeout_s)
        if not ready or ready.get("op") != "ready":
            raise RuntimeError(f"the zygote did not start: {ready}")

    def _send(self, message: dict[str, Any]) -> None:
        self.conn.send_bytes(json.dumps(message).encode())

    def _receive(self, timeout_s: float) -> dict[str, Any] | None:
        if not self.conn.poll(max(0.0, timeout_s)):
            return None
        message = json.loads(self.conn.recv_bytes())
        if message.get("op") == "exited":
            self.exits[int(message["pid"])] = int(message["code"])
        return message

    def _break(self, why: str) -> None:
        # the first reason is the one to show: a later failure is often only its consequence
        self.broken = self.broken or why
        self._close()

    def _close(self) -> None:
        conn, self.conn = self.conn, None
        with contextlib.suppress(Exception):
            if conn is not None:
                conn.send_bytes(json.dumps({"op": "shutdown"}).encode())
                conn.close()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=10)

    def close(self) -> None:
        with self.lock:
            self.broken = self.broken or "closed"
            self._close()


def running(pid: int) -> bool:
    """Whether the process runs. Once its zygote is gone, nobody may reap a forked worker (a
    container's init often does not): a zombie has ended, though its pid still answers."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
    except psutil.AccessDenied:
        return True


class ForkedProcess:
    """A forked worker seen as a subprocess.Popen: pid, poll(), wait(), kill()."""

    def __init__(self, zygote: Zygote, pid: int):
        self.zygote, self.pid, self.returncode = zygote, pid, None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self.zygote.exit_code(self.pid)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"worker {self.pid}", timeout)
            time.sleep(WAIT_EVERY_S)
        return self.returncode

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
