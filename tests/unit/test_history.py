"""SQLite history: add/list/get/delete, filters, WAL, a locked database, a corrupt file moved aside."""

import sqlite3
import threading

import pytest

from runtime_lab import record
from runtime_lab.record import Run
from runtime_lab.store import schema
from runtime_lab.store.history import History, HistoryError


def _run(i=0, experiment="streams", device="cpu", status="done"):
    return Run(
        job_id=f"j{i}",
        experiment=experiment,
        device=device,
        status=status,
        label=f"{experiment} {i}",
        spec={"experiment": experiment, "shape": [i + 1]},
        env={"torch": "x"},
        result={"max_abs_diff": 0.0} if status == "done" else None,
        error=None if status == "done" else "boom",
        created_at=1000.0 + i,
        started_at=1000.5 + i,
        finished_at=1001.0 + i,
    )


def test_the_table_has_one_column_per_field_of_the_record(tmp_path):
    History(tmp_path / "h.sqlite3")
    with sqlite3.connect(tmp_path / "h.sqlite3") as conn:
        columns = tuple(row[1] for row in conn.execute("PRAGMA table_info(runs)"))
    # rows are written and read by column name; `fingerprint` is history's own (an imported
    # run's identity, unique), not a record field
    assert columns == tuple(c.name for c in schema.COLUMNS)
    assert sorted(c.removesuffix("_json") for c in columns if c != "fingerprint") == sorted(
        record.FIELDS
    )


def test_every_field_reads_back_as_stored(tmp_path):
    """JSON fields as objects; a missing env as {} (never NULL); the id history's."""
    history = History(tmp_path / "h.sqlite3")
    full = dict(_run(3))  # the run as plain data, field by field
    run = Run.from_dict(
        full
        | {"process_probe": {"flagged": False}, "worker": {"pid": 7, "lane": "cpu"}}
        | {"origin": {"fingerprint": "ab"}, "id": 99}
    )
    stored = history.get(history.add(run))
    assert stored == Run.from_dict(run.to_dict() | {"id": 1})
    assert history.get(history.add(Run.from_dict(full | {"env": None}))).env == {}


def test_add_list_get_delete_and_filters(tmp_path):
    history = History(tmp_path / "h.sqlite3")
    ids = [
        history.add(_run(0)),
        history.add(_run(1, device="cuda:0")),
        history.add(_run(2, experiment="selftest", status="failed")),
    ]
    assert [r["id"] for r in history.list()] == ids[::-1]
    assert [r["id"] for r in history.list(device="cuda:0")] == [ids[1]]
    assert [r["id"] for r in history.list(experiment="selftest")] == [ids[2]]
    run = history.get(ids[0])
    assert (
        run["spec"] == {"experiment": "streams", "shape": [1]}
        and run["result"]["max_abs_diff"] == 0.0
    )
    assert history.get(ids[2])["result"] is None and history.get(ids[2])["error"] == "boom"
    assert history.facets() == {"experiment": ["selftest", "streams"], "device": ["cpu", "cuda:0"]}
    assert history.delete(ids[0]) and not history.delete(ids[0])
    assert history.get(ids[0]) is None


def test_survives_reopening_and_uses_wal(tmp_path):
    path = tmp_path / "h.sqlite3"
    run_id = History(path).add(_run())
    assert History(path).get(run_id)["label"] == "streams 0"
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_concurrent_writers_lose_nothing(tmp_path):
    history = History(tmp_path / "h.sqlite3")
    threads = [
        threading.Thread(target=lambda k=k: [history.add(_run(k * 10 + i)) for i in range(10)])
        for k in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(history.list(limit=1000)) == 80


def test_locked_database_gives_a_clear_error(tmp_path):
    path = tmp_path / "h.sqlite3"
    history = History(path, busy_timeout_s=0.2)
    blocker = sqlite3.connect(path)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(HistoryError, match="locked"):
            history.add(_run())
    finally:
        blocker.rollback()
        blocker.close()
    assert history.add(_run()) > 0


def test_corrupt_file_is_moved_aside(tmp_path):
    path = tmp_path / "h.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    history = History(path)
    assert "moved to" in history.notice
    assert list(tmp_path.glob("h.sqlite3.corrupt-*"))
    assert history.add(_run()) == 1
