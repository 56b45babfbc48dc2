"""SQLite history: add/list/get/delete, filters, WAL, a locked database, a corrupt file moved aside."""

import sqlite3
import threading

import pytest

from runtime_lab.store.history import History, HistoryError


def _run(i=0, experiment="streams", device="cpu", status="done"):
    return {
        "job_id": f"j{i}",
        "experiment": experiment,
        "device": device,
        "status": status,
        "label": f"{experiment} {i}",
        "spec": {"experiment": experiment, "shape": [i + 1]},
        "env": {"torch": "x"},
        "result": {"max_abs_diff": 0.0} if status == "done" else None,
        "error": None if status == "done" else "boom",
        "created_at": 1000.0 + i,
        "started_at": 1000.5 + i,
        "finished_at": 1001.0 + i,
    }


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
