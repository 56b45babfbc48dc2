"""A stored run whose values no reader can use (issue 26.3, defence in depth): written straight
into the history database, past the bundle checks, it is an error for that run alone. The
History page still lists every run, its picker and Delete work; `history` prints it on one
line, `compare` says so on one line, and `delete` removes it."""

from __future__ import annotations

import json
import math
import sqlite3

import pytest
from apphelpers import open_page, widget
from bundledata import cli
from comparedata import CPU_FUSION, CPU_STREAMS, legacy_runs, stored

from runtime_lab.store.history import History

PAGE = "app_pages/history.py"
# values an import took before it checked them: a time no clock gives, a number where the
# process notes read a list and the provenance table a list of GPUs, a lone surrogate
POISON = {
    "created_at": 1e300,
    "finished_at": math.inf,
    "worker_json": json.dumps({"alongside": 5}),
    "env_json": json.dumps({"gpus": 5, "hostname": "\ud800"}),
}


def _poison(path, run_id: int, **columns) -> int:
    """A copy of stored run `run_id` with `columns` replaced, inserted with sqlite3 (no check
    of ours on the way); returns its id."""
    with sqlite3.connect(path) as conn:
        conn.row_factory = sqlite3.Row
        row = dict(conn.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone())
        row.pop("id")
        row |= {"job_id": "poisoned", "fingerprint": None, "label": "poisoned run", **columns}
        names = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        return conn.execute(
            f"INSERT INTO runs ({names}) VALUES ({marks})", tuple(row.values())
        ).lastrowid


def _fill(path) -> tuple[int, int, int]:
    """A good fusion run, a good streams run, and the poisoned copy of the streams run (newest,
    so the page opens it first)."""
    history = History(path)
    runs = legacy_runs()
    fusion, streams = history.add(stored(runs[CPU_FUSION])), history.add(stored(runs[CPU_STREAMS]))
    return fusion, streams, _poison(path, streams, **POISON)


@pytest.fixture
def page(app):
    from runtime_lab import ui

    ids = _fill(ui.manager().history.path)
    return open_page(app, PAGE), ids


def _cannot_draw(at) -> list[str]:
    return [e.value for e in at.error if "cannot be drawn" in e.value]


def test_the_page_lists_every_run_and_fails_the_poisoned_one_alone(page):
    at, (fusion, streams, poisoned) = page
    table = at.dataframe[0].value
    assert sorted(table["id"]) == [fusion, streams, poisoned]
    times = dict(zip(table["id"], table["created_at"], strict=True))
    assert times[poisoned] == "not a time (1e+300)"
    assert times[fusion][:2] == "20"  # a real date beside it
    assert widget(at.selectbox, "Open run").value == poisoned
    (error,) = _cannot_draw(at)
    assert error.startswith(f"Run #{poisoned} cannot be drawn")
    assert "Traceback" not in error and "\n" not in error
    widget(at.selectbox, "Open run").set_value(streams).run()
    assert not at.exception and not _cannot_draw(at)
    # its headline: amber, the recorded CPU run's timing being noisy
    assert any(f"run #{streams}" in s.value for s in (*at.success, *at.warning))


def test_delete_removes_the_poisoned_run_from_the_page(page):
    at, (fusion, streams, poisoned) = page
    widget(at.button, f"Delete run #{poisoned}").click().run()  # asks first
    widget(at.button, f"Yes, delete run #{poisoned}").click().run()
    assert not at.exception, at.exception
    assert sorted(at.dataframe[0].value["id"]) == [fusion, streams]
    assert not _cannot_draw(at)
    from runtime_lab import ui

    assert ui.manager().history.get(poisoned) is None


def test_a_row_whose_json_does_not_parse_is_an_error_for_it_alone(app):
    from runtime_lab import ui

    history = ui.manager().history
    fusion, streams, poisoned = _fill(history.path)
    broken = _poison(history.path, streams, result_json="{")  # not JSON: never an import's
    at = open_page(app, PAGE)
    assert sorted(at.dataframe[0].value["id"]) == [fusion, streams, poisoned, broken]
    (error,) = [e.value for e in at.error]
    assert error.startswith(f"Run #{broken} cannot be read: JSONDecodeError: ")
    widget(at.button, f"Delete run #{broken}").click().run()  # asks first
    widget(at.button, f"Yes, delete run #{broken}").click().run()
    assert not at.exception, at.exception
    assert not [e.value for e in at.error if "cannot be deleted" in e.value]
    assert history.get(poisoned) is not None  # the other runs stay
    assert broken not in list(at.dataframe[0].value["id"])  # deleted, though it cannot be read


def test_a_comparison_with_the_poisoned_run_fails_alone(app):
    from runtime_lab import ui

    fusion, streams, poisoned = _fill(ui.manager().history.path)
    app.query_params["compare"] = f"{streams},{poisoned}"
    at = open_page(app, PAGE)
    assert any(e.value.startswith("Can't compare these runs: ") for e in at.error)
    assert sorted(at.dataframe[0].value["id"]) == [fusion, streams, poisoned]
    assert widget(at.selectbox, "Open run")  # the single-run view below, as without ?compare


def test_the_cli_lists_compares_and_deletes_the_poisoned_run(tmp_path):
    lab = tmp_path / "lab"
    lab.mkdir()
    fusion, streams, poisoned = _fill(lab / "history.sqlite3")
    listed = cli(lab, "history")
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert len(lines) == 3 and lines[0].startswith(f"#{poisoned}")
    assert "not a time (1e+300)" in lines[0] and "Traceback" not in listed.stderr
    compared = cli(lab, "compare", str(streams), str(poisoned))
    assert compared.returncode == 1 and not compared.stdout
    assert len(compared.stderr.splitlines()) == 1, compared.stderr
    assert compared.stderr.startswith(
        f"runtime_lab: error: cannot compare runs #{streams}, #{poisoned}: "
    )
    gone = cli(lab, "delete", str(poisoned))
    assert gone.returncode == 0, gone.stderr
    assert gone.stdout == f"deleted run #{poisoned} (poisoned run)\n"
    assert [r["id"] for r in History(lab / "history.sqlite3").list()] == [streams, fusion]


def test_delete_removes_a_run_whose_row_does_not_read(tmp_path):
    lab = tmp_path / "lab"
    lab.mkdir()
    _, streams, _ = _fill(lab / "history.sqlite3")
    broken = _poison(lab / "history.sqlite3", streams, spec_json="5")
    compared = cli(lab, "compare", str(streams), str(broken))
    assert compared.returncode == 1 and len(compared.stderr.splitlines()) == 1
    assert "Traceback" not in compared.stderr
    gone = cli(lab, "delete", str(broken))
    assert gone.returncode == 0 and gone.stdout.startswith(f"deleted run #{broken}"), gone.stderr
    unparsable = _poison(lab / "history.sqlite3", streams, result_json="{")
    done = cli(lab, "delete", str(unparsable))
    assert "Traceback" not in done.stderr and len((done.stdout + done.stderr).splitlines()) == 1


@pytest.mark.parametrize(
    ("given", "fragment"),
    [
        ("99", "no run #99 in history (`history` lists the runs)"),
        ("abc", "ID must be an integer from 1 to"),
        ("0", "ID must be an integer from 1 to"),
        ("", "ID must be an integer from 1 to"),
    ],
)
def test_delete_refuses_a_bad_or_unknown_id(tmp_path, given, fragment):
    lab = tmp_path / "lab"
    lab.mkdir()
    before = _fill(lab / "history.sqlite3")
    done = cli(lab, "delete", given)
    assert done.returncode == 2 and not done.stdout
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("runtime_lab: error: ") and fragment in done.stderr
    assert sorted(r["id"] for r in History(lab / "history.sqlite3").list()) == sorted(before)


def test_delete_without_a_history_creates_none(tmp_path):
    lab = tmp_path / "lab"
    lab.mkdir()
    done = cli(lab, "delete", "1")
    assert done.returncode == 2 and "no run #1 in history: no history in" in done.stderr
    assert not list(lab.iterdir())
