"""History files and bundles written before the package layout moved open and redraw every run.

Two databases, each as SQL (`sqlite3 .dump`) with, beside it, what the code that wrote it said
of each run (its report and CLI summary; the files the runs point to removed):
- v0.1: written by the code at 8502668 from CPU runs of every experiment, a failed self-test
  and the two H200 runs of tests/fixtures/h200 (no process probe, worker or origin columns);
- 78431cf: written by the code just before the move (main at 78431cf) from CPU runs of every
  experiment, a failed self-test and the v0.1 H200 runs imported from a bundle (probe, worker
  and origin filled). bundle-78431cf.json.gz is every run of it exported by that code, with
  what that code drew of each run after importing it."""

from __future__ import annotations

import dataclasses
import gzip
import json
import sqlite3
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from runtime_lab import registry
from runtime_lab.record import Run
from runtime_lab.store import bundle
from runtime_lab.store.history import History
from runtime_lab.view.text import markdown

FIXTURES = Path(__file__).parents[1] / "fixtures" / "legacy"
APP = str(Path(__file__).resolve().parents[2] / "app.py")
V01, MAIN = "v0.1", "78431cf"
BEFORE = {
    V01: json.loads((FIXTURES / "reports-v0.1.json").read_text()),
    MAIN: json.loads((FIXTURES / "reports-78431cf.json").read_text())["history"],
}
BUNDLE_BEFORE = json.loads((FIXTURES / "reports-78431cf.json").read_text())["bundle"]
CASES = [(name, run_id) for name, runs in BEFORE.items() for run_id in sorted(runs, key=int)]


def _restore(data_dir: Path, name: str) -> History:
    data_dir.mkdir(parents=True, exist_ok=True)
    sql = gzip.decompress((FIXTURES / f"history-{name}.sql.gz").read_bytes()).decode()
    with sqlite3.connect(data_dir / "history.sqlite3") as conn:
        conn.executescript(sql)
    return History(data_dir / "history.sqlite3")


def _picture(run: Run) -> dict:
    result = registry.load(run)  # once, for the report and the summary
    rep = registry.build_report(run, result=result)
    for _, chart in rep.charts:
        assert chart.to_dict()  # the chart still builds a valid Vega-Lite spec
    return {
        "experiment": run.spec["experiment"],
        "summary": json.loads(json.dumps(registry.summary(run, result=result), default=str)),
        "headline": rep.headline,
        "ok": rep.ok,
        "metrics": [[m.label, m.value] for m in rep.metrics],
        "charts": [t for t, _ in rep.charts],
        "tables": [[t, list(map(str, df.columns)), len(df)] for t, df in rep.tables],
        "downloads": [d[0] for d in rep.downloads],
        "notes": list(rep.notes),
        "warnings": list(rep.warnings),
    }


@pytest.mark.parametrize("name", list(BEFORE))
def test_fixture_covers_every_experiment(name):
    assert {v["experiment"] for v in BEFORE[name].values()} == set(registry.NAMES)


@pytest.mark.parametrize(("name", "run_id"), CASES)
def test_old_run_redraws_as_before(data_dir, name, run_id):
    history = _restore(data_dir, name)
    run = history.get(int(run_id))
    assert run is not None and history.notice is None
    assert _picture(run) == BEFORE[name][run_id]


def test_the_78431cf_rows_fill_every_field_of_the_record(data_dir):
    """The columns v0.1 lacked hold what that code wrote: a probe and a worker for the runs
    made there, an origin for the imported ones; stored again, a run reads back the same."""
    history = _restore(data_dir, MAIN)
    runs = [history.get(int(i)) for i in sorted(BEFORE[MAIN], key=int)]
    made = [r for r in runs if r.origin is None]
    imported = [r for r in runs if r.origin is not None]
    assert len(made) == 6 and len(imported) == 2
    assert all(r.worker["lane"] == "cpu" and r.process_probe["baseline"] for r in made)
    assert all(r.origin["origin_gpu"] == "NVIDIA H200" for r in imported)
    assert {r.status for r in runs} == {"done", "failed"}
    again = History(data_dir / "copy.sqlite3")
    for run in runs:
        stored = again.get(again.add(run))
        assert dataclasses.replace(stored, id=run.id) == run


def test_bundle_exported_before_the_move_imports_and_redraws(data_dir):
    data_dir.mkdir(parents=True)
    history = History(data_dir / "history.sqlite3")
    ids = bundle.import_file(FIXTURES / "bundle-78431cf.json.gz", history, data_dir)
    assert len(ids) == len(BUNDLE_BEFORE) == 8
    for number, run_id in enumerate(ids, 1):
        run = history.get(run_id)
        assert run.origin["bundle_version"] == 1
        assert _picture(run) == BUNDLE_BEFORE[str(number)], f"bundle run {number}"
    # the fusion run's three Chrome traces came with it, under the run's folder
    traces = [p.name.split("-", 1)[1] for p in (data_dir / bundle.IMPORTED).rglob("*.json")]
    assert sorted(traces) == ["dynamo-eager.json", "eager.json", "inductor.json"]


@pytest.mark.parametrize("name", list(BEFORE))
def test_history_page_opens_every_old_run(data_dir, name):
    _restore(data_dir, name)
    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page("app_pages/history.py")
    at.run()
    assert not at.exception, at.exception
    for run_id in sorted(BEFORE[name], key=int):
        box = next(s for s in at.selectbox if s.label == "Open run")
        box.set_value(int(run_id)).run()
        assert not at.exception, at.exception
        shown = [m.value for m in (*at.success, *at.warning, *at.error)]  # any verdict
        said = markdown(BEFORE[name][run_id]["headline"])  # as the page writes it: | escaped
        assert any(said in text for text in shown), shown
    st.cache_resource.clear()
