"""The history table, and the migration that brings a database of any earlier release up to it."""

from __future__ import annotations

import json
import sqlite3

from runtime_lab import record

TABLE = """
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
    origin_json TEXT,
    fingerprint TEXT
)"""
INDEXES = (
    "CREATE INDEX IF NOT EXISTS runs_experiment ON runs(experiment, device)",
    "CREATE INDEX IF NOT EXISTS runs_job ON runs(job_id)",
    # an imported run's identity (NULL for runs made here: each has a fresh job id)
    "CREATE UNIQUE INDEX IF NOT EXISTS runs_fingerprint ON runs(fingerprint) "
    "WHERE fingerprint IS NOT NULL",
)
# The record's fields as columns, JSON objects as text in `<field>_json` (runtime_lab/record.py)
JSON_FIELDS = record.json_fields()
COLUMNS = tuple(f"{name}_json" if name in JSON_FIELDS else name for name in record.FIELDS)
# columns added after the first release: a database written before gets them (NULL) on open
ADDED_COLUMNS = ("process_probe_json", "worker_json", "origin_json", "fingerprint")


def migrate(conn: sqlite3.Connection) -> None:
    """Create or update the table inside the caller's write transaction."""
    conn.execute(TABLE)
    have = {row[1] for row in conn.execute("PRAGMA table_info(runs)")}
    for column in ADDED_COLUMNS:
        if column not in have:
            conn.execute(f"ALTER TABLE runs ADD COLUMN {column} TEXT")
    if "fingerprint" not in have:
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
