"""The test session's zygote served to the processes its tests start ($RUNTIME_LAB_ZYGOTE_AT):
a CLI run or a served app forks its workers from it instead of importing torch in each; and the
bandwidth ceiling its workers measure, measured once per session."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import threading
from collections.abc import Callable
from multiprocessing.connection import Listener
from pathlib import Path
from typing import Any

from runtime_lab import config
from runtime_lab.runner import forked

LAB_ZYGOTE = forked.Zygote  # the lab's own, one per manager (taken before a test patches it)


class SharedCeiling:
    """A fusion job measures the memory ceiling once per data directory (lab/ceiling.py: copies
    and adds over 256 MiB, about 3 s of the 2 cores) and caches it there; every test has a data
    directory of its own, so each paid it. Here the first ceiling a worker of the session wrote
    is copied into each data directory a worker is forked for, where none is yet: measured once
    per session, by a real job. tests/integration/test_fusion_order.py tests the cache itself;
    a test marked `cold_caches` (a bar with empty caches) gets none."""

    def __init__(self):
        self.found: str | None = None  # the measured file's text
        self.watched: list[Path] = []  # data dirs seeded with nothing: one may measure it
        self.off = False  # a `cold_caches` test runs
        self.lock = threading.Lock()

    def seed(self, env: dict[str, str]) -> None:
        """Before a worker starts on env's data dir: give it the session's ceiling."""
        data = env.get(config.DATA_DIR_ENV)
        if self.off or not data:
            return
        target = Path(data) / config.CEILING_FILE
        with self.lock:
            if self.found is None:
                self.found = next(filter(None, map(_measured, self.watched)), None)
            if target.exists() or not target.parent.is_dir():
                return
            if self.found is None:
                self.watched.append(target)
                return
            partial = target.with_suffix(".seeding")
            partial.write_text(self.found)
            os.replace(partial, target)  # whole or not at all: a worker may read it now


def _measured(path: Path) -> str | None:
    """The file's text once a worker has written it whole (it is written in place)."""
    try:
        text = path.read_text()
        entries = json.loads(text)
    except (OSError, ValueError):
        return None
    return text if entries and all("add_gbps" in e for e in entries.values()) else None


class ZygoteService:
    """Answers runtime_lab/runner/served_zygote.py's questions (usable, fork, exit_code), one
    thread per client, with the zygote `current()` gives (the session's; a broken one is
    replaced there). Each pid's exit is asked of the zygote that forked it."""

    def __init__(self, current: Callable[[], Any], ceiling: SharedCeiling):
        self.current = current
        self.ceiling = ceiling
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
            self.ceiling.seed(ask["env"])
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
