"""A history.sqlite3 written before the package layout moved opens and redraws every run.

The fixture is that database as SQL (`sqlite3 .dump`), written by the code at 8502668 from CPU
runs of every experiment, a failed self-test and the two H200 runs of tests/fixtures/h200; beside
it, what that code's report and CLI summary said of each run (files it pointed to removed)."""

from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from runtime_lab import registry
from runtime_lab.store.history import History

FIXTURES = Path(__file__).parents[1] / "fixtures" / "legacy"
BEFORE = json.loads((FIXTURES / "reports-v0.1.json").read_text())
APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _restore(data_dir: Path) -> History:
    data_dir.mkdir(parents=True, exist_ok=True)
    sql = gzip.decompress((FIXTURES / "history-v0.1.sql.gz").read_bytes()).decode()
    with sqlite3.connect(data_dir / "history.sqlite3") as conn:
        conn.executescript(sql)
    return History(data_dir / "history.sqlite3")


def _picture(run: dict) -> dict:
    rep = registry.build_report(run)
    for _, chart in rep.charts:
        assert chart.to_dict()  # the chart still builds a valid Vega-Lite spec
    return {
        "experiment": run["spec"]["experiment"],
        "summary": json.loads(json.dumps(registry.summary(run), default=str)),
        "headline": rep.headline,
        "ok": rep.ok,
        "metrics": [[m.label, m.value] for m in rep.metrics],
        "charts": [t for t, _ in rep.charts],
        "tables": [[t, list(map(str, df.columns)), len(df)] for t, df in rep.tables],
        "downloads": [d[0] for d in rep.downloads],
        "notes": list(rep.notes),
        "warnings": list(rep.warnings),
    }


def test_fixture_covers_every_experiment():
    assert {v["experiment"] for v in BEFORE.values()} == set(registry.NAMES)


@pytest.mark.parametrize("run_id", sorted(BEFORE, key=int))
def test_old_run_redraws_as_before(data_dir, run_id):
    history = _restore(data_dir)
    run = history.get(int(run_id))
    assert run is not None and history.notice is None
    assert _picture(run) == BEFORE[run_id]


def test_history_page_opens_every_old_run(data_dir):
    _restore(data_dir)
    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page("app_pages/history.py")
    at.run()
    assert not at.exception, at.exception
    for run_id in sorted(BEFORE, key=int):
        box = next(s for s in at.selectbox if s.label == "Open run")
        box.set_value(int(run_id)).run()
        assert not at.exception, at.exception
        shown = [m.value for m in (*at.success, *at.error)]
        assert any(BEFORE[run_id]["headline"] in text for text in shown), shown
    st.cache_resource.clear()
