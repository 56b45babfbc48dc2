"""Stored text is text and origin is visible, on the History page: a run whose error, label,
notes and GPU name hold markdown, HTML and LaTeX renders them literally; an imported run is
marked in the list, its report and compare."""

from __future__ import annotations

import copy
import dataclasses

import pytest
from apphelpers import open_page
from comparedata import CPU_FUSION, legacy_runs, stored
from literal import interpreted, problems, rendered

from runtime_lab import ui
from runtime_lab.store import bundle
from runtime_lab.store.history import History

PAGE = "app_pages/history.py"
LINK = "[click me](http://evil.example/x)"
IMAGE = "![pixel](http://evil.example/p.png)"
LABEL = f"{LINK} $\\pi$ <b>bold</b> **loud**"
GPU = f"{IMAGE} # H200 <i>x</i>"
ERROR = (
    "Traceback (most recent call last):\n"
    f'  File "run.py", line 1, in <module>\n'
    f"    raise RuntimeError('{LINK}')\n"
    f"# Heading\n{IMAGE} $x^2$ <img src=x onerror=alert(1)>\n"
    "- not a list"
)
NOTE = f"note: {LINK} {IMAGE} $$e$$ <script>alert(1)</script> :red[red]"
HOST = f"lab-b {LINK}"


def _hostile(run, **changes):
    env = copy.deepcopy(run.env) | {"gpus": [{"index": 0, "name": GPU}]}
    return dataclasses.replace(stored(run), label=LABEL, env=env, **changes)


@pytest.fixture
def runs(app):
    """A failed run and a done one with a note, both hostile, and a hostile imported one."""
    history = ui.manager().history
    base = legacy_runs()[CPU_FUSION]
    failed = history.add(_hostile(base, status="failed", error=ERROR, result=None))
    result = copy.deepcopy(base.result) | {"notes": [NOTE]}
    done = history.add(_hostile(base, result=result, job_id="done-job"))
    origin = {"origin_host": HOST, "origin_gpu": GPU, "imported_at": 1.8e9, "fingerprint": "f" * 64}
    imported = history.add(_hostile(base, origin=origin, job_id="imported-job"))
    return failed, done, imported


def _shown(at) -> list[str]:
    """Every value the page renders as markdown."""
    kinds = ("markdown", "caption", "error", "warning", "info", "success", "subheader", "title")
    values = [e.value for kind in kinds for e in at.get(kind)]
    values += [m.label for m in at.metric] + [m.value for m in at.metric]
    return values + [e.label for e in at.expander]


def _open(app, run_id):
    app.query_params["run"] = str(run_id)
    at = open_page(app, PAGE)
    for value in _shown(at):  # no link, image, HTML, formula or heading anywhere on the page
        assert interpreted(value) == [], value
    return at


def test_the_list_shows_labels_and_origin_as_text(app, runs):
    failed, done, imported = runs
    at = open_page(app, PAGE)
    table = at.dataframe[0].value.set_index("id")
    # a label someone gave a run is quoted after the fields that tell the runs apart
    assert all(
        label.endswith(f"“{LABEL}”") for label in table.loc[[failed, done, imported], "label"]
    )
    assert table.loc[imported, "origin"] == f"imported from {HOST} ({GPU})"
    assert table.loc[failed, "origin"] == table.loc[done, "origin"] == ""
    picker = next(s for s in at.selectbox if s.label == "Open run")
    assert any(
        o.startswith(f"#{imported}: ") and o.endswith(f"“{LABEL}” (imported from {HOST} ({GPU}))")
        for o in picker.options
    ), picker.options
    for value in _shown(at):
        assert interpreted(value) == [], value


def test_a_failed_runs_error_renders_literally(app, runs):
    at = _open(app, runs[0])
    (error,) = [c.value for c in at.caption if "Traceback" in c.value]
    assert problems(error) == [], error
    assert rendered(error) == ERROR


def test_a_runs_note_renders_literally(app, runs):
    at = _open(app, runs[1])
    (note,) = [c.value for c in at.caption if "note:" in c.value]
    assert problems(note) == [], note
    assert rendered(note) == NOTE


def test_an_imported_runs_report_says_where_it_was_recorded(app, runs):
    at = _open(app, runs[2])
    (said,) = [i.value for i in at.info if "Not recorded here" in i.value]
    assert problems(said) == [], said
    assert rendered(said).startswith(f"Not recorded here: imported from {HOST} ({GPU}) on ")
    assert not [i for i in _open(app, runs[1]).info if "Not recorded here" in i.value]


def test_compare_marks_the_imported_run(app, runs):
    _, done, imported = runs
    app.query_params["compare"] = f"{done},{imported}"
    at = open_page(app, PAGE)
    notes = [rendered(c.value) for c in at.caption]
    assert f"#{imported} was imported from {HOST} ({GPU}): measured on that machine, not here" in (
        notes
    )
    for value in _shown(at):
        assert interpreted(value) == [], value


def test_a_bundle_import_is_marked_as_imported(app, tmp_path):
    other = History(tmp_path / "other.sqlite3")
    run = stored(legacy_runs()[CPU_FUSION])
    theirs = other.add(dataclasses.replace(run, env=run.env | {"hostname": "lab-b"}))
    data = bundle.export_runs(other, [theirs], tmp_path)
    history = ui.manager().history
    mine = history.add(run)
    (imported,) = bundle.import_bytes(data, history, ui.manager().data_dir)
    at = open_page(app, PAGE)
    origin = at.dataframe[0].value.set_index("id")["origin"]
    assert (origin[mine], origin[imported]) == ("", "imported from lab-b")


def test_an_echoed_link_key_and_value_render_literally(app):
    app.query_params[LINK] = IMAGE  # an unknown field, named by markdown
    app.query_params["dtype"] = f"{IMAGE} $x$"
    at = open_page(app, "app_pages/fusion.py")
    errors = [e.value for e in at.error]
    assert any(rendered(e).startswith(f"**{LINK}** (from the link)") for e in errors), errors
    for value in _shown(at):
        assert interpreted(value) == [], value


def test_a_bad_compare_link_is_echoed_literally(app, runs):
    app.query_params["compare"] = f"1,{LINK}"
    at = open_page(app, PAGE)
    (error,) = [e.value for e in at.error if "compare" in e.value]
    assert rendered(error).startswith(f"Can't compare ?compare=1,{LINK[:20]}"), error
    for value in _shown(at):
        assert interpreted(value) == [], value
