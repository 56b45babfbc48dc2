"""History's own rules (issue 26): a run's identity is unique, an old database with the runs
an earlier race stored twice still opens (both kept), read-only opens never write."""

from __future__ import annotations

import json
import sqlite3

import pytest

from runtime_lab.record import Run
from runtime_lab.store.history import DuplicateRun, History, HistoryError


def _imported(job: str, mark: str, label: str = "x") -> Run:
    return Run(
        job_id=job,
        experiment="streams",
        device="cpu",
        status="done",
        label=label,
        spec={"shape": [4]},
        env={"hostname": "elsewhere"},
        created_at=1_700_000_000.0,
        origin={"fingerprint": mark, "origin_host": "elsewhere"},
    )


def test_an_imported_run_is_stored_once_even_past_the_quick_check(tmp_path):
    history = History(tmp_path / "h.sqlite3")
    history.add(_imported("j1", "m1"))
    with pytest.raises(DuplicateRun, match="run 2 is already in history as run #1"):
        history.add_many([_imported("j2", "m2"), _imported("j1", "m1", "again")])
    assert len(history.list()) == 1  # all or none: j2 not stored either


def test_a_local_run_exported_and_imported_back_is_the_same_run(tmp_path):
    history = History(tmp_path / "h.sqlite3")
    local = Run.from_dict(_imported("j1", "").to_dict() | {"origin": None})
    history.add(local)
    from runtime_lab.store.identity import fingerprint

    mark = fingerprint("j1", local.created_at, "elsewhere", local.spec)
    with pytest.raises(DuplicateRun, match="as run #1"):
        history.add(_imported("j1", mark))


def _old_database(path, rows):
    """A database of the release before the identity column, with rows as given."""
    with sqlite3.connect(path) as conn:
        conn.execute(
            "CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, job_id TEXT NOT NULL, "
            "experiment TEXT NOT NULL, device TEXT NOT NULL, status TEXT NOT NULL, label TEXT "
            "NOT NULL, spec_json TEXT NOT NULL, env_json TEXT NOT NULL, result_json TEXT, error "
            "TEXT, created_at REAL NOT NULL, started_at REAL, finished_at REAL, "
            "process_probe_json TEXT, worker_json TEXT, origin_json TEXT)"
        )
        for job, origin in rows:
            conn.execute(
                "INSERT INTO runs (job_id, experiment, device, status, label, spec_json, "
                "env_json, created_at, origin_json) VALUES (?, 'streams', 'cpu', 'done', ?, "
                "'{}', '{}', 1.0, ?)",
                (job, job, json.dumps(origin) if origin else None),
            )


def test_an_old_database_with_a_run_stored_twice_opens_and_keeps_both(tmp_path):
    path = tmp_path / "h.sqlite3"
    _old_database(path, [("a", {"fingerprint": "m"}), ("a", {"fingerprint": "m"}), ("b", None)])
    history = History(path)
    assert len(history.list()) == 3  # nothing recorded is lost
    with pytest.raises(DuplicateRun):  # and from now on a run is stored once
        history.add(_imported("a", "m"))


def test_read_only_on_a_missing_file_is_an_empty_history_and_creates_nothing(tmp_path):
    history = History(tmp_path / "h.sqlite3", readonly=True)
    assert history.list() == [] and history.get(1) is None and history.facets()["device"] == []
    assert not list(tmp_path.iterdir())
    with pytest.raises(HistoryError, match="read-only"):
        history.add(_imported("j", "m"))
    with pytest.raises(HistoryError, match="read-only"):
        history.delete(1)


def test_read_only_never_migrates_an_old_database(tmp_path):
    path = tmp_path / "h.sqlite3"
    _old_database(path, [("a", None)])
    before = path.read_bytes()
    assert [r["label"] for r in History(path, readonly=True).list()] == ["a"]
    assert path.read_bytes() == before


def test_read_only_reports_a_damaged_file_and_leaves_it(tmp_path):
    path = tmp_path / "h.sqlite3"
    path.write_bytes(b"not a database " * 100)
    with pytest.raises(HistoryError, match="is damaged .* nothing was changed"):
        History(path, readonly=True)
    assert [p.name for p in tmp_path.iterdir()] == ["h.sqlite3"]


def test_the_unique_index_itself_refuses_a_second_copy(tmp_path):
    """Past the in-transaction check (a writer that skips it): the index says no, as a
    DuplicateRun; a NOT NULL violation is a plain HistoryError, never called a duplicate."""
    path = tmp_path / "h.sqlite3"
    History(path).add(_imported("j1", "m1"))
    insert = (
        "INSERT INTO runs (job_id, experiment, device, status, label, spec_json, env_json, "
        "created_at, fingerprint) VALUES ('other', 'streams', 'cpu', 'done', 'x', '{}', '{}', "
        "1.0, ?)"
    )
    with sqlite3.connect(path) as conn, pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
        conn.execute(insert, ("m1",))
    history = History(path)
    with pytest.raises(DuplicateRun):
        history._run(insert, ("m1",))
    with pytest.raises(HistoryError) as caught:
        history._run("INSERT INTO runs (job_id) VALUES ('x')")
    assert not isinstance(caught.value, DuplicateRun) and "NOT NULL" in str(caught.value)
