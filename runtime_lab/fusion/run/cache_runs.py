"""Which of this lab's stored runs wrote the compile-cache entries a compile found (issue 49)."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

from runtime_lab import config
from runtime_lab.fusion.result import ModeResult
from runtime_lab.lab import cache_env
from runtime_lab.results import CompileLatency
from runtime_lab.store.history import History, HistoryError

LOOKBACK = 2000  # stored fusion runs searched for a writer, newest first (a short row each)


def warm_from(results: list[ModeResult], token: str) -> list[ModeResult]:
    """Each compile that found entries in the persistent caches, with who wrote them: the
    writers' job tokens from the lab's record in the cache folder (cache_env.writer), and the
    stored runs of this lab those jobs were. Read once every timed figure is in."""
    from torch._inductor.runtime.cache_dir_utils import cache_dir

    runs = _Runs(token)
    root = Path(cache_dir())  # the worker's persistent folder again: the job restored it
    return [replace(m, compile=tuple(_resolved(c, root, runs) for c in m.compile)) for m in results]


def _resolved(c: CompileLatency, root: Path, runs: _Runs) -> CompileLatency:
    if c.cache_dirs != "persistent" or not c.cache_hit_keys:
        return c
    entries = [cache_env.writer(root, key) for key in c.cache_hit_keys]
    found = {runs.of(e) for e in entries if e is not None}
    return replace(
        c,
        cache_writers=tuple(e["token"] if e else "" for e in entries),
        warm_from_runs=tuple(sorted(n for n in found if n is not None)),
    )


class _Runs:
    """Writers' tokens to this lab's stored run ids, the history opened read-only when first
    needed; a writer that is this job, or not a stored fusion run here, is None."""

    def __init__(self, own: str) -> None:
        self.own = own
        self.rows: list[dict] | None = None
        self.history: History | None = None
        self.known: dict[str, int | None] = {}

    def of(self, entry: dict) -> int | None:
        token = entry["token"]
        if token == self.own:
            return None
        if token not in self.known:
            self.known[token] = self._find(token, entry.get("at"))
        return self.known[token]

    def _find(self, token: str, at: object) -> int | None:
        """The stored run whose job wrote at `at`: the runs that were under way then (usually
        one) are read until one's result names the token."""
        if not isinstance(at, int | float):
            return None
        try:
            for row in self._rows():
                if row["origin"] or not row["created_at"] <= at <= (row["finished_at"] or math.inf):
                    continue  # an imported run was never this lab's job
                run = self.history.get(row["id"]) if self.history else None
                if run is not None and (run.result or {}).get("cache_token") == token:
                    return run.id
        except (HistoryError, OSError, TypeError):  # no history to read: the writer stays unnamed
            return None
        return None

    def _rows(self) -> list[dict]:
        if self.rows is None:
            path = config.data_dir(create=False) / "history.sqlite3"
            self.history = History(path, readonly=True)
            self.rows = self.history.list("fusion", limit=LOOKBACK)
        return self.rows
