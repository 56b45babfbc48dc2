"""A zygote another process serves ($RUNTIME_LAB_ZYGOTE_AT): the test session's, for its CLIs."""

# Why: every `python -m runtime_lab run` a test starts, and every app a browser test serves,
# imported torch again in a worker of its own (3-4 s of the 2 cores each, and a first compile
# that paid Inductor's set-up: 8 s more). The test session already holds a warm zygote; with
# this variable set, a manager asks that one to fork its workers (tests/helpers/zygote_service.py
# serves it). Any failure breaks only this link: the workers then start as processes of their
# own, as without it. Not for users: a zygote is a server's own (runner/forked.py).

from __future__ import annotations

import json
import signal
import threading
from multiprocessing.connection import Client
from typing import Any

from runtime_lab import envvars
from runtime_lab.runner.forked import running


def from_env() -> ServedZygote | None:
    """The zygote $RUNTIME_LAB_ZYGOTE_AT names (KEYHEX@HOST:PORT), None when unset, off
    ($RUNTIME_LAB_ZYGOTE=0) or out of reach."""
    where = envvars.value(envvars.ZYGOTE_AT_ENV)
    if not where or not envvars.value(envvars.ZYGOTE_ENV):
        return None
    try:
        key, _, address = where.partition("@")
        host, _, port = address.rpartition(":")
        return ServedZygote(Client((host, int(port)), authkey=bytes.fromhex(key)))
    except (OSError, ValueError, EOFError):
        return None


class ServedZygote:
    """forked.Zygote's interface (usable, fork, exit_code, give_up, close) over one pipe to the
    process that serves the zygote; each question waits for its answer."""

    def __init__(self, conn):
        self.conn = conn
        self.lock = threading.Lock()  # dispatcher threads and close() share the pipe
        self.broken: str | None = None
        self.no_forks: str | None = None

    def _ask(self, **message: Any) -> dict[str, Any]:
        with self.lock:
            if self.broken is not None:
                raise ConnectionError(self.broken)
            try:
                self.conn.send_bytes(json.dumps(message).encode())
                return json.loads(self.conn.recv_bytes())
            except (OSError, EOFError, ValueError) as exc:
                self.broken = f"the served zygote stopped answering: {exc}"
                raise ConnectionError(self.broken) from exc

    def usable(self, env: dict[str, str]) -> bool:
        if self.no_forks is not None:
            return False
        try:
            return bool(self._ask(op="usable", env=env)["usable"])
        except ConnectionError:
            return False

    def fork(self, env: dict[str, str], address: str, timeout_s: float) -> int | None:
        try:
            return self._ask(op="fork", env=env, address=address, timeout_s=timeout_s)["pid"]
        except ConnectionError:
            return None

    def exit_code(self, pid: int) -> int | None:
        try:
            return self._ask(op="exit_code", pid=pid)["code"]
        except ConnectionError:  # as forked.Zygote: its exit status is gone with the link
            return -signal.SIGKILL if not running(pid) else None

    def give_up(self, why: str) -> None:
        self.no_forks = self.no_forks or why  # this manager's forks only: the zygote is not ours

    def close(self) -> None:
        with self.lock:
            self.broken = self.broken or "closed"
            self.conn.close()
