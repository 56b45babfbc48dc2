"""The history table, derived from the run record's fields, and the migration up to it."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from runtime_lab import record

# A field's column type from the plain types its value may have (record.stored_rules), tried
# in this order: a float field also takes an int, and a JSON object is stored as its text.
SQL_TYPES = ((dict, "TEXT"), (float, "REAL"), (int, "INTEGER"), (str, "TEXT"))
# The exceptions to "one column per field, NOT NULL where a stored run never holds None":
KEY = "id"  # history gives a run its id: the table's key, never reused, not a run's value
FINGERPRINT = "fingerprint"  # history's own column: an imported run's identity, unique


@dataclass(frozen=True)
class Column:
    """One column of `runs`: the Run field it holds (None: history's own), its SQL type and
    constraint. A JSON object field is text in `<field>_json`."""

    name: str
    field: str | None
    sql_type: str
    constraint: str = ""  # NOT NULL, the key's, or none
    is_json: bool = False

    @property
    def nullable(self) -> bool:
        return not self.constraint

    @property
    def definition(self) -> str:
        return " ".join(part for part in (self.name, self.sql_type, self.constraint) if part)

    def cell(self, value: Any) -> Any:
        """A field's value as this column stores it."""
        return json.dumps(value) if self.is_json and value is not None else value

    def read(self, cell: Any) -> Any:
        """A stored cell as the field's value (NULL or empty JSON text: None)."""
        return (json.loads(cell) if cell else None) if self.is_json else cell


def _column(name: str, types: tuple[type, ...], null: bool) -> Column:
    sql_type = next((sql for kind, sql in SQL_TYPES if kind in types), None)
    if sql_type is None:
        raise TypeError(f"Run.{name} holds {types}: store/schema.py SQL_TYPES has no column type")
    is_json, constraint = dict in types, "" if null else "NOT NULL"
    if name == KEY:
        constraint = "PRIMARY KEY AUTOINCREMENT"
    return Column(f"{name}_json" if is_json else name, name, sql_type, constraint, is_json)


def columns(run_type: type = record.Run) -> tuple[Column, ...]:
    """The table's columns: one per field of the record in field order, then history's own."""
    derived = (_column(*rule) for rule in record.stored_rules(run_type))
    return (*derived, Column(FINGERPRINT, None, "TEXT"))


COLUMNS = columns()
INSERTED = tuple(c for c in COLUMNS if c.name != KEY)  # every column a new row is given
INSERT = (
    f"INSERT INTO runs ({', '.join(c.name for c in INSERTED)}) "
    f"VALUES ({', '.join('?' for _ in INSERTED)})"
)
INDEXES = (
    "CREATE INDEX IF NOT EXISTS runs_experiment ON runs(experiment, device)",
    "CREATE INDEX IF NOT EXISTS runs_job ON runs(job_id)",
    # an imported run's identity (NULL for runs made here: each has a fresh job id)
    "CREATE UNIQUE INDEX IF NOT EXISTS runs_fingerprint ON runs(fingerprint) "
    "WHERE fingerprint IS NOT NULL",
)


def create_table(table: tuple[Column, ...] = COLUMNS) -> str:
    body = ",\n    ".join(column.definition for column in table)
    return f"CREATE TABLE IF NOT EXISTS runs (\n    {body}\n)"


def migrate(conn: sqlite3.Connection, table: tuple[Column, ...] = COLUMNS) -> None:
    """Create or update the table inside the caller's write transaction: a database of an
    earlier release gets each column it lacks."""
    conn.execute(create_table(table))
    have = {row[1] for row in conn.execute("PRAGMA table_info(runs)")}
    for column in table:
        if column.name not in have:
            # without its constraint: SQLite adds a NOT NULL column only with a default, and
            # the rows stored before it hold NULL there (history reads that as the default)
            conn.execute(f"ALTER TABLE runs ADD COLUMN {column.name} {column.sql_type}")
    if FINGERPRINT not in have:
        _backfill(conn)
    for index in INDEXES:
        conn.execute(index)


def _backfill(conn: sqlite3.Connection) -> None:
    """Imported runs of an earlier release get their identity column; a run stored twice by
    the old race between two imports keeps both rows (nothing recorded is lost), the later
    one without the column, so the unique index can be built."""
    seen: set[str] = set()
    rows = conn.execute(
        "SELECT id, origin_json FROM runs WHERE origin_json IS NOT NULL ORDER BY id"
    )
    for run_id, origin_text in rows.fetchall():
        try:
            mark = (json.loads(origin_text) or {}).get("fingerprint")
        except (ValueError, AttributeError):
            continue
        if isinstance(mark, str) and mark and mark not in seen:
            seen.add(mark)
            conn.execute("UPDATE runs SET fingerprint = ? WHERE id = ?", (mark, run_id))
