"""Run history in SQLite (WAL): every finished run with its spec, environment and result."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from runtime_lab import record
from runtime_lab.quote import quote
from runtime_lab.record import Run
from runtime_lab.store import artefacts, identity, opening, schema
from runtime_lab.store.opening import HistoryError

__all__ = ["DuplicateRun", "History", "HistoryError"]

LIST_COLUMNS = ("id", "experiment", "device", "status", "label", "created_at", "finished_at")
# and `origin`: None for a run made here, else where its bundle came from (Run.origin)


class DuplicateRun(HistoryError):
    """A run being added is already stored (same identity); nothing of that call was stored."""

    def __init__(self, number: int, existing: int | None):
        self.number, self.existing = number, existing
        where = f" as run #{existing}" if existing is not None else ""
        which = f"run {number}" if number else "a run being stored"
        super().__init__(f"{which} is already in history{where}; a run is stored once")


class History:
    """A SQLite file under the data directory; one short-lived connection per call (thread-safe).
    `readonly` (the CLI's history, compare and export) never creates, migrates or moves a file."""

    def __init__(self, path: str | Path, busy_timeout_s: float = 5.0, *, readonly: bool = False):
        self.path = Path(path)
        self.busy_timeout_s = busy_timeout_s
        self.readonly = readonly
        self.notice: str | None = None  # set when a corrupt file was moved aside
        self._absent = False  # read-only and no file yet: an empty history, nothing created
        self._open()

    def _connect(self) -> sqlite3.Connection:
        return opening.connect(self.path, readonly=self.readonly, timeout_s=self.busy_timeout_s)

    def _open(self) -> None:
        if self.readonly and not self.path.exists():
            self._absent = True
            return
        try:
            opening.check(self.path, readonly=self.readonly)
        except opening.Corrupt as exc:
            if self.readonly:
                raise opening.corrupt_readonly(self.path, str(exc)) from exc
            aside = opening.move_aside(self.path)
            self.notice = (
                f"history database was unreadable ({exc}); moved to {aside.name} "
                "(with its -wal and -shm files, if any), started a new one"
            )
        if not self.readonly:
            self._migrate()

    def _migrate(self) -> None:
        """The schema and the columns added since the first release; any error changes nothing."""
        try:
            with closing(self._connect()) as conn:
                conn.execute("PRAGMA journal_mode=WAL")
                with conn:
                    conn.execute("BEGIN IMMEDIATE")  # one process migrates; the others wait
                    schema.migrate(conn)
        except sqlite3.DatabaseError as exc:
            raise opening.transient(self.path, exc) from exc

    def _run(self, sql: str, params: tuple = (), *, fetch: str = "") -> Any:
        if self._absent:  # read-only, no file: every query answers as an empty table would
            return [] if fetch == "all" else None
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
            raise opening.transient(self.path, exc, "used") from exc
        except sqlite3.IntegrityError as exc:
            if "UNIQUE constraint failed: runs.fingerprint" in str(exc):  # a concurrent writer won
                raise DuplicateRun(0, None) from exc
            raise HistoryError(f"a run could not be stored: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            raise HistoryError(f"history database {self.path.name} is unreadable: {exc}") from exc

    def add(self, run: Run) -> int:
        """Store a finished run (its id is history's to give); returns its id."""
        return self.add_many([run])[0]

    def add_many(self, runs: list[Run]) -> list[int]:
        """Store several runs in one transaction (a bundle import): all of them or none. An
        imported run already here (its identity) is DuplicateRun: checked inside the same
        write transaction as the insert, so two imports of one bundle at once store it once."""
        rows = [_row(run) for run in runs]  # a malformed run fails here, before any insert

        def work(conn: sqlite3.Connection) -> list[int]:
            conn.execute("BEGIN IMMEDIATE")
            for number, run in enumerate(runs, 1):
                if (mark := _mark(run)) and (found := _same(conn, run.job_id, mark)):
                    raise DuplicateRun(number, found)
            return [conn.execute(schema.INSERT, row).lastrowid for row in rows]

        self._writable()
        return self._transaction(work)

    def _writable(self) -> None:
        if self.readonly:
            raise HistoryError(f"history database {self.path} was opened read-only")

    def list(
        self, experiment: str | None = None, device: str | None = None, limit: int = 500
    ) -> list[dict]:
        """Newest first, without the bulky JSON columns (the spec, small, is read: the History
        page labels runs by the fields that differ)."""
        where, params = [], []
        if experiment:
            where.append("experiment = ?")
            params.append(experiment)
        if device:
            where.append("device = ?")
            params.append(device)
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        columns = ", ".join((*LIST_COLUMNS, "origin_json", "spec_json"))
        sql = f"SELECT {columns} FROM runs {clause} ORDER BY id DESC LIMIT ?"
        rows = self._run(sql, (*params, int(limit)), fetch="all")
        for row in rows:
            row["origin"] = _origin(row.pop("origin_json"))
            row["spec"] = _spec(row.pop("spec_json"))
        return rows

    def durations(self, experiment: str, limit: int = 200) -> list[dict[str, Any]]:
        """Recent runs of an experiment (spec, device, status, start and end, host, whether it
        was imported), newest first: what an estimate of the next run's duration is made from."""
        sql = (
            "SELECT spec_json, env_json, device, status, started_at, finished_at, origin_json "
            "FROM runs WHERE experiment = ? ORDER BY id DESC LIMIT ?"
        )
        rows = self._run(sql, (experiment, int(limit)), fetch="all")
        for row in rows:
            row["spec"] = json.loads(row.pop("spec_json") or "{}")
            row["hostname"] = (json.loads(row.pop("env_json") or "{}") or {}).get("hostname")
            row["imported"] = row.pop("origin_json") not in (None, "", "null")
        return rows

    def get(self, run_id: int) -> Run | None:
        row = self._run("SELECT * FROM runs WHERE id = ?", (int(run_id),), fetch="one")
        return None if row is None else _stored(row)

    def delete(self, run_id: int) -> bool:
        """Remove a run, and the artefact files its import wrote that no other run names."""
        self._writable()

        def work(conn: sqlite3.Connection) -> tuple | None:
            sql = "SELECT result_json, origin_json FROM runs WHERE id = ?"
            row = conn.execute(sql, (int(run_id),)).fetchone()
            if row is not None:
                conn.execute("DELETE FROM runs WHERE id = ?", (int(run_id),))
            return row

        row = self._transaction(work)
        if row is None:
            return False
        # a row that does not parse (written past the import) is deleted all the same
        result, origin = (_parsed(text) for text in row)
        if origin:  # after the commit: a file of a run that is still stored is never gone
            artefacts.remove_imported(result, self.path.parent, self._named)
        return True

    def _named(self, path: str) -> bool:
        """Whether any stored run's result still names this file."""
        needle = json.dumps(path)[1:-1]
        sql = "SELECT 1 FROM runs WHERE instr(result_json, ?) > 0 LIMIT 1"
        return self._run(sql, (needle,), fetch="one") is not None

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
    """A run as the INSERT's parameters: its fields as their columns store them (env is never
    NULL: v0.1's rule), and history's own identity column."""
    if problem := record.time_problem(run):  # said as the run's bad value, not a DB fault
        raise HistoryError(f"run {quote(run.label or run.job_id)} cannot be stored: {problem}")
    values = run.to_dict() | {"env": run.env or {}}
    own = {schema.FINGERPRINT: _mark(run)}
    return tuple(c.cell(values[c.field]) if c.field else own[c.name] for c in schema.INSERTED)


def _mark(run: Run) -> str | None:
    """An imported run's identity (a run made here has a fresh job id anyway)."""
    mark = (run.origin or {}).get("fingerprint")
    return mark if isinstance(mark, str) and mark else None


def _same(conn: sqlite3.Connection, job_id: str, mark: str) -> int | None:
    """The id of a stored run with this identity (imported, or made here), if any."""
    sql = (
        "SELECT id, job_id, created_at, spec_json, env_json, origin_json FROM runs WHERE job_id = ?"
    )
    for row in conn.execute(sql, (str(job_id),)):
        spec, env, origin = (
            json.loads(row[c] or "null") for c in ("spec_json", "env_json", "origin_json")
        )
        if identity.of_stored(row["job_id"], row["created_at"], env, spec, origin) == mark:
            return row["id"]
    return None


def _origin(text: str | None) -> dict[str, Any] | None:
    """An origin_json cell as the list shows it: None for a run made here; an imported run's
    origin, or {} (still imported, from an unnamed host) when its text doesn't parse."""
    if text in (None, "", "null"):
        return None
    try:
        origin = json.loads(text)
    except ValueError:
        return {}
    return origin if isinstance(origin, dict) else {}


def _spec(text: str | None) -> dict[str, Any]:
    """A spec_json cell as the list shows it: {} where it does not parse as an object."""
    spec = _parsed(text)
    return spec if isinstance(spec, dict) else {}


def _parsed(text: str | None) -> Any:
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


def _stored(row: dict[str, Any]) -> Run:
    """A stored row as a Run: JSON columns parsed (NULL or empty text: None). A NULL where a
    stored run never holds one (a column added after the row was written) is the default."""
    plain = {
        column.field: column.read(row.get(column.name))
        for column in schema.COLUMNS
        if column.field and (column.nullable or row.get(column.name) is not None)
    }
    return Run.from_dict(plain)
