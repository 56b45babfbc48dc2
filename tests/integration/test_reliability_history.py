"""Durable history (issue 7.5): writers in several processes, a writer killed mid-stream, corrupt
files reported and moved aside (library, CLI and page). The Streamlit server killed during a
run is in tests/test_reliability_server.py."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from runtime_lab.record import Run
from runtime_lab.store.history import History

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")

WRITER = """
import sys, time
from runtime_lab.record import Run
from runtime_lab.store.history import History
path, tag, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
history = History(path, busy_timeout_s=30)
for i in range(count):
    run_id = history.add(Run(**{
        "job_id": f"{tag}-{i}", "experiment": "streams", "device": "cpu", "status": "done",
        "label": f"{tag} {i}", "spec": {"shape": [i + 1]}, "env": {"pid": tag},
        "result": {"max_abs_diff": 0.0, "samples": list(range(200))},
        "created_at": time.time(), "started_at": time.time(), "finished_at": time.time(),
    }))
    print(f"{tag}-{i} {run_id}", flush=True)  # printed only once the insert has committed
"""


def _writer(path, tag, count):
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), tag, str(count)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )


def _integrity(path):
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]


@pytest.mark.slow
def test_writers_in_several_processes_lose_no_run(tmp_path):
    path = tmp_path / "history.sqlite3"
    History(path)  # create the schema once, as the server does before any worker runs
    writers = [_writer(path, f"w{k}", 100) for k in range(4)]
    acknowledged = {}
    for proc in writers:
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 0
        acknowledged |= dict(line.split() for line in out.splitlines())
    rows = History(path).list(limit=1000)
    assert len(acknowledged) == len(rows) == 400
    assert {str(r["id"]) for r in rows} == set(acknowledged.values())
    assert _integrity(path) == "ok"


@pytest.mark.slow
def test_a_writer_killed_mid_stream_leaves_every_committed_run(tmp_path):
    path = tmp_path / "history.sqlite3"
    History(path)
    steady = _writer(path, "steady", 60)
    victim = _writer(path, "victim", 100_000)
    committed = []
    for line in victim.stdout:  # kill it once it is well into writing, between any two statements
        committed.append(line.split())
        if len(committed) == 50:
            os.kill(victim.pid, signal.SIGKILL)
            break
    victim.wait()
    committed += [line.split() for line in victim.stdout]  # whatever it printed before dying
    out, _ = steady.communicate(timeout=120)
    assert steady.returncode == 0 and victim.returncode == -signal.SIGKILL
    history = History(path)
    assert history.notice is None and _integrity(path) == "ok"
    stored = {r["id"] for r in history.list(limit=100_000)}
    for job_id, run_id in committed + [line.split() for line in out.splitlines()]:
        run = history.get(int(run_id))
        assert run is not None and run["job_id"] == job_id and int(run_id) in stored
        assert run["result"]["samples"] == list(range(200))
    assert len(stored) >= len(committed) + 60


def _damaged(path: Path, runs: int = 20) -> Path:
    """A real history whose pages are then overwritten in the middle (a torn disk write)."""
    history = History(path)
    for i in range(runs):
        history.add(
            Run(
                job_id=f"j{i}",
                experiment="streams",
                device="cpu",
                status="done",
                label=f"run {i}",
                spec={"shape": [i + 1]},
                env={},
                result={"blob": "x" * 3000},
                created_at=1.0,
            )
        )
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    data[4096 : 4096 * 3] = b"\xde\xad\xbe\xef" * 2048
    path.write_bytes(bytes(data))
    return path


def test_damaged_database_is_moved_aside_and_a_fresh_one_used(tmp_path):
    path = _damaged(tmp_path / "history.sqlite3")
    original = path.read_bytes()
    wal = Path(f"{path}-wal")
    wal.write_bytes(b"frames a recovery may need")  # a WAL is never deleted, only moved along
    history = History(path)
    assert "unreadable" in history.notice and "moved to history.sqlite3.corrupt-" in history.notice
    aside = sorted(tmp_path.glob("history.sqlite3.corrupt-*"), key=lambda p: len(p.name))
    assert aside[0].read_bytes() == original  # kept for recovery, untouched
    assert Path(f"{aside[0]}-wal").read_bytes() == b"frames a recovery may need"
    assert history.list() == [] and history.add(Run.from_dict(_run_row() | {"job_id": "new"})) == 1
    assert _integrity(path) == "ok"


def _run_row():
    return {
        "job_id": "x",
        "experiment": "streams",
        "device": "cpu",
        "status": "done",
        "label": "x",
        "spec": {},
        "env": {},
        "result": None,
        "created_at": 1.0,
    }


def test_cli_history_reports_a_corrupt_database_and_moves_nothing(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "history.sqlite3").write_bytes(b"not a database at all " * 200)
    done = subprocess.run(
        [sys.executable, "-m", "runtime_lab", "--data-dir", str(data), "history"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    # `history` only reads: it says what is wrong and leaves the file where it is
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert "is damaged" in done.stderr and "nothing was changed" in done.stderr
    assert not list(data.glob("history.sqlite3.corrupt-*"))
    assert (data / "history.sqlite3").read_bytes() == b"not a database at all " * 200


def test_app_reports_a_corrupt_database_and_keeps_working(data_dir):
    data_dir.mkdir(parents=True, exist_ok=True)
    _damaged(data_dir / "history.sqlite3")
    st.cache_resource.clear()
    try:
        at = AppTest.from_file(APP, default_timeout=60)
        at.run()
        assert not at.exception
        warnings = [w.value for w in at.sidebar.warning]
        assert any("moved to history.sqlite3.corrupt-" in w for w in warnings), warnings
        at.switch_page("app_pages/history.py")
        at.run()
        assert not at.exception and any("No runs recorded yet" in i.value for i in at.info)
    finally:
        st.cache_resource.clear()
    assert list(data_dir.glob("history.sqlite3.corrupt-*"))
