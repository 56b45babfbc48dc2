"""The server's handle on the worker subprocess: start it, talk JSON to it, notice its death."""

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
from pathlib import Path
from typing import Any

from runtime_lab.envvars import ASKED_AT_ENV
from runtime_lab.runner.forked import ForkedProcess, Zygote
from runtime_lab.runner.worker import AUTHKEY_ENV

START_TIMEOUT_S = 180.0  # importing torch and initialising CUDA can take a while on a cold disk
ROOT = Path(__file__).resolve().parents[2]


class WorkerDied(Exception):
    """The worker process ended or its pipe broke; `reason` says how."""


def describe_exit(code: int | None) -> str:
    if code is None:
        return "worker stopped answering"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"worker process was killed by {name} (exit {code})"
    return f"worker process exited with status {code}"


class WorkerProcess:
    """One `python -m runtime_lab.runner.worker` child connected back to a loopback listener."""

    def __init__(self, extra_env: dict[str, str] | None = None, zygote: Zygote | None = None):
        self.extra_env = dict(extra_env or {})
        self.zygote = zygote  # the server's zygote forks the worker, else a process of its own
        self.forked = False
        self.proc: subprocess.Popen | ForkedProcess | None = None
        self.conn = None
        self.env: dict[str, Any] = {}
        self.pid: int | None = None
        self.baseline_probe: dict[str, Any] | None = None  # its process probe at start-up
        self.ready_mono: float | None = None  # when its hello came (time.monotonic())
        # the dispatcher and close() (another thread) may both kill one worker: the
        # `conn, self.conn = self.conn, None` swap is two bytecodes, and two threads closing
        # one descriptor can close a number already reused by another pipe
        self._kill_lock = threading.Lock()
        self._killed = False

    def start(self, timeout_s: float = START_TIMEOUT_S) -> None:
        try:
            self._start(timeout_s)
        except WorkerDied as exc:
            if not self.forked or self._killed:
                raise
            # a forked worker that cannot start (on the H100 host every one failed to start
            # CUDA after fork) is not retried as a fork: no more forks, and this one on its own
            self.zygote.give_up(f"a forked worker did not start: {exc}")
            self.forked = False
            self._start(timeout_s)

    def _start(self, timeout_s: float) -> None:
        key = secrets.token_bytes(32)
        listener = Listener(("127.0.0.1", 0), authkey=key)
        host, port = listener.address
        env = {
            **os.environ,
            **self.extra_env,
            AUTHKEY_ENV: key.hex(),
            ASKED_AT_ENV: repr(time.time()),
        }
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        zygote = self.zygote if self.zygote is not None and self.zygote.usable(env) else None
        pid = zygote.fork(env, f"{host}:{port}", timeout_s) if zygote else None
        if pid is not None:
            self.proc, self.forked = ForkedProcess(zygote, pid), True
        else:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "runtime_lab.runner.worker", "--address", f"{host}:{port}"],
                env=env,
                cwd=os.getcwd(),
                stdin=subprocess.DEVNULL,
            )
        self.pid = self.proc.pid
        try:
            conn = self._accept(listener, timeout_s)
        finally:
            listener.close()
        with self._kill_lock:
            if self._killed:  # killed from another thread while it connected: close it here
                conn.close()
                raise WorkerDied("the worker was stopped while it started")
            self.conn = conn
        hello = self.receive(timeout_s)
        if not hello or hello.get("op") != "hello":
            self._end()
            raise WorkerDied(f"worker sent no greeting within {timeout_s:.0f} s")
        self.env = hello["env"]
        self.baseline_probe = hello.get("probe")
        self.ready_mono = time.monotonic()

    def _accept(self, listener: Listener, timeout_s: float):
        box: dict[str, Any] = {}

        def accept() -> None:
            try:
                box["conn"] = listener.accept()
            except Exception as exc:  # closed listener or bad authkey
                box["error"] = exc

        thread = threading.Thread(target=accept, daemon=True)
        thread.start()
        deadline = time.monotonic() + timeout_s
        while thread.is_alive() and time.monotonic() < deadline:
            thread.join(0.1)
            if self.proc.poll() is not None and "conn" not in box:
                break
        if "conn" not in box:
            code = self.proc.poll()
            self._end()
            raise WorkerDied(
                f"worker did not start: {describe_exit(code) if code is not None else 'timed out'}"
            )
        return box["conn"]

    def send(self, message: dict[str, Any]) -> None:
        conn = self.conn
        if conn is None:
            raise WorkerDied("the worker was stopped")
        try:
            conn.send_bytes(json.dumps(message).encode())
        except (OSError, ValueError) as exc:
            raise WorkerDied(self.exit_reason()) from exc

    def receive(self, timeout_s: float) -> dict[str, Any] | None:
        """The next message, None if none came within timeout_s; WorkerDied if the pipe closed."""
        conn = self.conn  # once: kill() from another thread (close()) sets it to None
        if conn is None:
            raise WorkerDied("the worker was stopped")
        try:
            if not conn.poll(timeout_s):
                return None
            return json.loads(conn.recv_bytes())
        except (EOFError, OSError) as exc:
            raise WorkerDied(self.exit_reason()) from exc

    def exit_reason(self) -> str:
        try:
            code = self.proc.wait(timeout=5) if self.proc else None
        except subprocess.TimeoutExpired:
            code = None
        return describe_exit(code)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        with self._kill_lock:
            self._killed = True  # from another thread: a start in progress must not go on
        self._end()

    def _end(self) -> None:
        with self._kill_lock:
            if self.proc and self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(timeout=10)
            conn, self.conn = self.conn, None
            # its descriptor may be gone already (EBADF seen when a manager closed while its
            # spare was starting): the worker is dead either way, and closing must not fail
            with contextlib.suppress(OSError):
                if conn is not None:
                    conn.close()

    def stop(self) -> None:
        """Ask politely, then kill."""
        if self.conn is not None and self.alive():
            try:
                self.send({"op": "shutdown"})
                self.proc.wait(timeout=5)
            except (WorkerDied, subprocess.TimeoutExpired):
                pass
        self.kill()
