"""Origin is visible: an imported run is marked in the list and in compare, and only runs
recorded here feed the run-time estimate."""

from __future__ import annotations

import dataclasses
import time

from comparedata import CPU_FUSION, legacy_runs, stored

from runtime_lab.compare import comparison
from runtime_lab.registry import EXPERIMENTS
from runtime_lab.store.estimate import estimate
from runtime_lab.store.history import History

RUNS = legacy_runs()
LOCAL = RUNS[CPU_FUSION]  # recorded on host "vm", 35 s from start to end
HOST = LOCAL.env["hostname"]
ORIGIN = {
    "imported_at": 1_800_000_000.0,
    "origin_host": "lab-b",
    "origin_gpu": "NVIDIA H200",
    "bundle_version": 1,
    "fingerprint": "f" * 64,
}


def _imported(**changes):
    """The same spec, imported: same host name even, and a run time in milliseconds (the
    issue's "about 1440000.0 min")."""
    start = time.time()
    fields = {"started_at": start, "finished_at": start + 86_400_000.0, "origin": ORIGIN}
    return dataclasses.replace(stored(LOCAL), job_id="imported-job", **(fields | changes))


def _estimate(history: History):
    past = history.durations("fusion")
    return estimate(EXPERIMENTS["fusion"], LOCAL.spec, "cpu", past, HOST)


def test_durations_say_which_runs_were_imported(tmp_path):
    history = History(tmp_path / "h.sqlite3")
    local, imported = history.add(stored(LOCAL)), history.add(_imported())
    rows = history.durations("fusion")
    assert [r["imported"] for r in rows] == [True, False]  # newest first
    assert {r["hostname"] for r in rows} == {HOST}
    assert imported > local


def test_an_imported_run_does_not_feed_the_estimate_while_a_local_one_does(tmp_path):
    history = History(tmp_path / "h.sqlite3")
    history.add(_imported())
    alone = _estimate(history)
    assert alone is None or alone.seconds < 3600, alone  # nothing, or the measured default
    history.add(stored(LOCAL))
    found = _estimate(history)
    took = LOCAL.finished_at - LOCAL.started_at
    assert found.seconds == took and "median of 1 earlier run" in found.basis
    assert "min" not in found.text()


def test_a_run_time_no_clock_gives_feeds_no_estimate(tmp_path):
    history = History(tmp_path / "h.sqlite3")
    backwards = dataclasses.replace(stored(LOCAL), finished_at=LOCAL.started_at - 5)
    history.add(backwards)
    found = _estimate(history)
    assert found is None or found.seconds > 0


def test_the_list_carries_each_runs_origin(tmp_path):
    history = History(tmp_path / "h.sqlite3")
    history.add(stored(LOCAL))
    history.add(_imported())
    imported, local = history.list()
    assert local["origin"] is None
    assert imported["origin"]["origin_host"] == "lab-b"


def test_compare_marks_the_imported_run(tmp_path):
    local = dataclasses.replace(stored(LOCAL), id=1)
    imported = dataclasses.replace(_imported(), id=2)
    view = comparison.build([local, imported])
    assert "#2 was imported from lab-b (NVIDIA H200): measured on that machine, not here" in (
        view.notes
    )
    row = view.differences.set_index("field").loc["recorded"]
    assert (row["#1"], row["#2"]) == ("here", "imported from lab-b (NVIDIA H200)")


def test_compare_of_local_runs_has_no_origin_row_or_note():
    first, second = (dataclasses.replace(stored(LOCAL), id=i) for i in (1, 2))
    view = comparison.build([first, second])
    assert "recorded" not in set(view.differences["field"])
    assert not any("imported" in note for note in view.notes)
