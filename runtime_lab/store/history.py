"""Run history in SQLite (WAL): every finished run with its spec, environment and result."""

from __future__ import annotations

import json
import sqlite3
import time
from contextlib import closing
from pathlib import Path
from typing import Any

from runtime_lab import record
from runtime_lab.record import Run

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id TEXT NOT NULL,
    experiment TEXT NOT NULL,
    device TEXT NOT NULL,
    status TEXT NOT NULL,
    label TEXT NOT NULL,
    spec_json TEXT NOT NULL,
    env_json TEXT NOT NULL,
    result_json TEXT,
    error TEXT,
    created_at REAL NOT NULL,
    started_at REAL,
    finished_at REAL,
    process_probe_json TEXT,
    worker_json TEXT,
    origin_json TEXT
);
CREATE INDEX IF NOT EXISTS runs_experiment ON runs(experiment, device);
"""
# The record's fields as columns, JSON objects as text in `<field>_json` (runtime_lab/record.py)
JSON_FIELDS = record.json_fields()
COLUMNS = tuple(f"{name}_json" if name in JSON_FIELDS else name for name in record.FIELDS)
# JSON columns added after the first release: a database written before gets them (NULL) on open
ADDED_COLUMNS = ("process_probe_json", "worker_json", "origin_json")
_INSERTED = [(f, c) for f, c in zip(record.FIELDS, COLUMNS, strict=True) if f != "id"]
_INSERT = (
    f"INSERT INTO runs ({', '.join(c for _, c in _INSERTED)}) "
    f"VALUES ({', '.join('?' for _ in _INSERTED)})"
)
LIST_COLUMNS = ("id", "experiment", "device", "status", "label", "created_at", "finished_at")


class HistoryError(Exception):
    """The history database cannot be used right now; the message says why and what to do."""


class History:
    """A SQLite file under the data directory; one short-lived connection per call (thread-safe)."""

    def __init__(self, path: str | Path, busy_timeout_s: float = 5.0):
        self.path = Path(path)
        self.busy_timeout_s = busy_timeout_s
        self.notice: str | None = None  # set when a corrupt file was moved aside
        self._open()

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=self.busy_timeout_s)
        conn.row_factory = sqlite3.Row
        return conn

    def _open(self) -> None:
        try:
            self._init_schema()
        except sqlite3.DatabaseError as exc:
            if "locked" in str(exc):
                raise HistoryError(
                    f"history database {self.path} is locked by another process"
                ) from exc
            aside = self.path.with_name(f"{self.path.name}.corrupt-{int(time.time())}")
            self.path.replace(aside)
            for suffix in ("-wal", "-shm"):
                Path(str(self.path) + suffix).unlink(missing_ok=True)
            self.notice = (
                f"history database was unreadable ({exc}); moved to {aside.name}, started a new one"
            )
            self._init_schema()

    def _init_schema(self) -> None:
        with closing(self._connect()) as conn:
            check = conn.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise sqlite3.DatabaseError(f"integrity check failed: {check}")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.executescript(SCHEMA)
            have = {row[1] for row in conn.execute("PRAGMA table_info(runs)")}
            for column in ADDED_COLUMNS:
                if column not in have:
                    try:
                        conn.execute(f"ALTER TABLE runs ADD COLUMN {column} TEXT")
                    except sqlite3.OperationalError as exc:
                        # another process opening the same file migrated it first: not corrupt
                        if "duplicate column" not in str(exc):
                            raise
            conn.commit()

    def _run(self, sql: str, params: tuple = (), *, fetch: str = "") -> Any:
        return self._transaction(lambda conn: _fetched(conn.execute(sql, params), fetch))

    def _transaction(self, work: Any) -> Any:
        """work(conn) on one connection, committed when it returns, rolled back if it raises."""
        try:
            with closing(self._connect()) as conn, conn:
                return work(conn)
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise HistoryError(
                    f"history database {self.path.name} is locked (another process is writing); "
                    "try again in a moment"
                ) from exc
            raise HistoryError(f"history database error: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            raise HistoryError(f"history database {self.path.name} is unreadable: {exc}") from exc

    def add(self, run: Run) -> int:
        """Store a finished run (its id is history's to give); returns its id."""
        return self.add_many([run])[0]

    def add_many(self, runs: list[Run]) -> list[int]:
        """Store several runs in one transaction (a bundle import): all of them or none."""
        rows = [_row(run) for run in runs]  # a malformed run fails here, before any insert
        return self._transaction(lambda conn: [conn.execute(_INSERT, r).lastrowid for r in rows])

    def with_job_id(self, job_id: str) -> list[Run]:
        """Runs recorded from one job: what a bundle import compares against to refuse a run
        that is already here."""
        sql = "SELECT * FROM runs WHERE job_id = ? ORDER BY id"
        return [_stored(row) for row in self._run(sql, (str(job_id),), fetch="all")]

    def list(
        self, experiment: str | None = None, device: str | None = None, limit: int = 500
    ) -> list[dict]:
        """Newest first, without the bulky JSON columns."""
        where, params = [], []
        if experiment:
            where.append("experiment = ?")
            params.append(experiment)
        if device:
            where.append("device = ?")
            params.append(device)
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        sql = f"SELECT {', '.join(LIST_COLUMNS)} FROM runs {clause} ORDER BY id DESC LIMIT ?"
        return self._run(sql, (*params, int(limit)), fetch="all")

    def durations(self, experiment: str, limit: int = 200) -> list[dict[str, Any]]:
        """Recent runs of an experiment (spec, device, status, start and end, host), newest
        first: what an estimate of the next run's duration is made from."""
        sql = (
            "SELECT spec_json, env_json, device, status, started_at, finished_at FROM runs "
            "WHERE experiment = ? ORDER BY id DESC LIMIT ?"
        )
        rows = self._run(sql, (experiment, int(limit)), fetch="all")
        for row in rows:
            row["spec"] = json.loads(row.pop("spec_json") or "{}")
            row["hostname"] = (json.loads(row.pop("env_json") or "{}") or {}).get("hostname")
        return rows

    def get(self, run_id: int) -> Run | None:
        row = self._run("SELECT * FROM runs WHERE id = ?", (int(run_id),), fetch="one")
        return None if row is None else _stored(row)

    def delete(self, run_id: int) -> bool:
        return self._run("DELETE FROM runs WHERE id = ?", (int(run_id),)).rowcount > 0

    def facets(self) -> dict[str, list[str]]:
        """Distinct experiments and devices, for the History page's filters."""
        rows = self._run("SELECT DISTINCT experiment, device FROM runs", fetch="all")
        return {
            "experiment": sorted({r["experiment"] for r in rows}),
            "device": sorted({r["device"] for r in rows}),
        }


def _fetched(cursor: sqlite3.Cursor, fetch: str) -> Any:
    if fetch == "all":
        return [dict(row) for row in cursor.fetchall()]
    if fetch == "one":
        row = cursor.fetchone()
        return dict(row) if row else None
    return cursor


def _row(run: Run) -> tuple:
    """A run as the INSERT's parameters, JSON fields as text (env is never NULL: v0.1's rule)."""
    values = run.to_dict() | {"env": run.env or {}}
    return tuple(_text(values[f]) if f in JSON_FIELDS else values[f] for f, _ in _INSERTED)


def _text(value: Any) -> str | None:
    return None if value is None else json.dumps(value)


def _stored(row: dict[str, Any]) -> Run:
    """A stored row as a Run: JSON columns parsed (NULL or empty text: None)."""
    plain = {}
    for name, column in zip(record.FIELDS, COLUMNS, strict=True):
        raw = row.get(column)
        plain[name] = (json.loads(raw) if raw else None) if name in JSON_FIELDS else raw
    return Run.from_dict(plain)
