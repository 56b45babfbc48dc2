"""History's table is derived from the run record's fields: a field added to Run is a column,
with its SQL type from its field type, in new databases and, on open, in old ones."""

from __future__ import annotations

import dataclasses
import sqlite3
from typing import Any

import pytest

from runtime_lab import record
from runtime_lab.record import Run
from runtime_lab.store import schema
from runtime_lab.store.history import History

# the table as it was written by hand beside the record up to this change (v0.1's columns
# and those added since): the derived one must hold exactly these, whatever their order
HAND_WRITTEN = {
    "id INTEGER PRIMARY KEY AUTOINCREMENT",
    "job_id TEXT NOT NULL",
    "experiment TEXT NOT NULL",
    "device TEXT NOT NULL",
    "status TEXT NOT NULL",
    "label TEXT NOT NULL",
    "spec_json TEXT NOT NULL",
    "env_json TEXT NOT NULL",
    "result_json TEXT",
    "error TEXT",
    "created_at REAL NOT NULL",
    "started_at REAL",
    "finished_at REAL",
    "process_probe_json TEXT",
    "worker_json TEXT",
    "origin_json TEXT",
    "fingerprint TEXT",
}


@dataclasses.dataclass(frozen=True, kw_only=True)
class Wider(Run):
    """Run with fields a later release might add."""

    tag: str = ""
    score: float | None = None
    notes: dict[str, Any] | None = None


def _table(conn: sqlite3.Connection) -> list[tuple[str, str, int]]:
    return [(r[1], r[2], r[3]) for r in conn.execute("PRAGMA table_info(runs)")]


def test_the_columns_are_the_records_fields_then_historys_own():
    assert [c.field for c in schema.COLUMNS] == [*record.FIELDS, None]
    assert {c.definition for c in schema.COLUMNS} == HAND_WRITTEN
    json_columns = [c.name for c in schema.COLUMNS if c.is_json]
    assert json_columns == [f"{name}_json" for name in record.json_fields()]


def test_a_new_database_is_made_of_the_derived_columns(tmp_path):
    History(tmp_path / "h.sqlite3")
    with sqlite3.connect(tmp_path / "h.sqlite3") as conn:
        table = _table(conn)
    expected = [(c.name, c.sql_type, int(c.constraint == "NOT NULL")) for c in schema.COLUMNS]
    assert table == expected


def test_a_field_added_to_the_record_becomes_a_column_typed_by_its_field():
    added = {c.definition for c in schema.columns(Wider)} - HAND_WRITTEN
    assert added == {"tag TEXT NOT NULL", "score REAL", "notes_json TEXT"}
    assert [c.name for c in schema.columns(Wider)][-4:] == [
        "tag",
        "score",
        "notes_json",
        "fingerprint",
    ]


def test_an_existing_database_gains_the_added_fields_columns_and_keeps_its_rows(tmp_path):
    path = tmp_path / "h.sqlite3"
    run = Run(status="done", spec={"experiment": "streams"}, env={}, device="cpu", created_at=1.0)
    History(path).add(run)
    with sqlite3.connect(path) as conn:
        schema.migrate(conn, schema.columns(Wider))
        names = [name for name, _, _ in _table(conn)]
        rows = conn.execute("SELECT status, device, tag, score, notes_json FROM runs").fetchall()
    assert names == [c.name for c in schema.COLUMNS] + ["tag", "score", "notes_json"]
    # added as nullable (SQLite adds NOT NULL only with a default): the old row holds NULL
    assert rows == [("done", "cpu", None, None, None)]


def test_a_field_of_a_type_with_no_column_type_is_refused_at_once():
    @dataclasses.dataclass(frozen=True, kw_only=True)
    class Listed(Run):
        tags: list[str] = dataclasses.field(default_factory=list)

    with pytest.raises(TypeError, match=r"Run\.tags holds \(<class 'list'>,\)"):
        schema.columns(Listed)


def test_a_first_release_database_gets_the_columns_it_lacks(tmp_path):
    path = tmp_path / "h.sqlite3"
    v01 = [c for c in schema.COLUMNS if c.field not in ("process_probe", "worker", "origin", None)]
    with sqlite3.connect(path) as conn:
        conn.execute(schema.create_table(tuple(v01)))
        conn.execute(
            "INSERT INTO runs (job_id, experiment, device, status, label, spec_json, env_json, "
            "created_at) VALUES ('j', 'streams', 'cpu', 'done', 'old', '{}', '{}', 1.0)"
        )
    history = History(path)
    with sqlite3.connect(path) as conn:
        assert [name for name, _, _ in _table(conn)] == [c.name for c in v01] + [
            "process_probe_json",
            "worker_json",
            "origin_json",
            "fingerprint",
        ]
    run = history.get(1)
    assert (run.label, run.worker, run.origin) == ("old", None, None)


def test_a_null_where_a_stored_run_never_holds_one_reads_as_the_fields_default(tmp_path):
    """A column added by the migration after the row was written (here: label) is NULL in
    that row; the run reads with the field's default, not a None its type does not allow."""
    path = tmp_path / "h.sqlite3"
    without_label = tuple(c for c in schema.COLUMNS if c.field != "label")
    with sqlite3.connect(path) as conn:
        conn.execute(schema.create_table(without_label))
        conn.execute(
            "INSERT INTO runs (job_id, experiment, device, status, spec_json, env_json, "
            "created_at) VALUES ('j', 'streams', 'cpu', 'done', '{}', '{}', 1.0)"
        )
    run = History(path).get(1)
    assert run.label == "" and run.job_id == "j"
