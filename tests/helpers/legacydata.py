"""The history.sqlite3 written before the package layout moved (tests/fixtures/legacy), restored
into a data dir, and what that code's report and CLI summary said of each of its runs."""

from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path

from runtime_lab.store.history import History

FIXTURES = Path(__file__).parents[1] / "fixtures" / "legacy"
# v0.1's run id (text) -> its report's headline, metrics, charts, tables, notes and CLI summary
BEFORE = json.loads((FIXTURES / "reports-v0.1.json").read_text())


def restore(data_dir: Path, name: str = "v0.1") -> History:
    """The legacy database `name` (history-<name>.sql.gz) as data_dir's history."""
    data_dir.mkdir(parents=True, exist_ok=True)
    sql = gzip.decompress((FIXTURES / f"history-{name}.sql.gz").read_bytes()).decode()
    with sqlite3.connect(data_dir / "history.sqlite3") as conn:
        conn.executescript(sql)
    return History(data_dir / "history.sqlite3")
