"""The test session's zygote served to the processes its tests start ($RUNTIME_LAB_ZYGOTE_AT):
a CLI run or a served app forks its workers from it instead of importing torch in each."""

from __future__ import annotations

import contextlib
import json
import secrets
import threading
from collections.abc import Callable
from multiprocessing.connection import Listener
from typing import Any

from runtime_lab.runner import forked

LAB_ZYGOTE = forked.Zygote  # the lab's own, one per manager (taken before a test patches it)


class ZygoteService:
    """Answers runtime_lab/runner/served_zygote.py's questions (usable, fork, exit_code), one
    thread per client, with the zygote `current()` gives (the session's; a broken one is
    replaced there). Each pid's exit is asked of the zygote that forked it."""

    def __init__(self, current: Callable[[], Any]):
        self.current = current
        self.key = secrets.token_bytes(32)
        self.listener = Listener(("127.0.0.1", 0), authkey=self.key)
        self.forked_by: dict[int, Any] = {}
        self.clients: list = []
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def address(self) -> str:
        host, port = self.listener.address
        return f"{self.key.hex()}@{host}:{port}"

    def _accept(self) -> None:
        while not self.closed:
            try:
                conn = self.listener.accept()
            except Exception:  # closed, or a client that failed the key: keep serving
                if self.closed:
                    return
                continue
            self.clients.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn) -> None:
        with contextlib.suppress(EOFError, OSError):
            while True:
                ask = json.loads(conn.recv_bytes())
                conn.send_bytes(json.dumps(self._answer(ask)).encode())

    def _answer(self, ask: dict[str, Any]) -> dict[str, Any]:
        if ask["op"] == "usable":
            return {"usable": self.current().usable(ask["env"])}
        if ask["op"] == "fork":
            zygote = self.current()
            pid = zygote.fork(ask["env"], ask["address"], ask["timeout_s"])
            if pid is not None:
                self.forked_by[pid] = zygote
            return {"pid": pid}
        zygote = self.forked_by.get(ask["pid"])
        return {"code": zygote.exit_code(ask["pid"]) if zygote else None}

    def close(self) -> None:
        self.closed = True
        self.listener.close()
        for conn in self.clients:
            with contextlib.suppress(OSError):
                conn.close()
