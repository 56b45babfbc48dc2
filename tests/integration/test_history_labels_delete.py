"""History (issue 49): labels name the experiment and a status other than done, the page opens
the newest done run, and Delete asks before it deletes. Runs are stored directly (no worker)."""

from __future__ import annotations

import dataclasses

import pytest
from apphelpers import open_page, widget
from comparedata import CPU_FUSION, CPU_STREAMS, legacy_runs, stored

from runtime_lab import ui

PAGE = "app_pages/history.py"
CANCELLED = "cancelled while running; the worker was restarted"


def _cancelled(run):
    """A copy of `run` cancelled while it ran: no result, its own job."""
    return dataclasses.replace(
        stored(run), status="cancelled", error=CANCELLED, result=None, job_id="cancelled-job"
    )


@pytest.fixture
def runs(app):
    """A done fusion run, then a newer cancelled one of the same spec: their ids."""
    history = ui.manager().history
    fusion = legacy_runs()[CPU_FUSION]
    return history.add(stored(fusion)), history.add(_cancelled(fusion))


def _labels(at) -> dict[int, str]:
    table = at.dataframe[0].value
    return dict(zip(table["id"], table["label"], strict=True))


def _picker(at):
    return widget(at.selectbox, "Open run")


def test_history_opens_the_newest_done_run_and_labels_say_cancelled(app, runs):
    done, cancelled = runs
    at = open_page(app, PAGE)
    assert _picker(at).value == done  # not the newer cancelled one
    labels = _labels(at)
    for run_id in runs:  # the experiment first, then the workload and the shape
        assert labels[run_id].startswith("fusion · pointwise · 256x256 · "), labels[run_id]
        assert f"#{run_id}: {labels[run_id]}" in _picker(at).options
    assert labels[cancelled].endswith(" · cancelled")
    assert "cancelled" not in labels[done]
    assert "speed-up" in labels[done]  # its headline figure, which a cancelled run has not


def test_a_run_link_opens_the_cancelled_run_all_the_same(app, runs):
    done, cancelled = runs
    app.query_params["run"] = str(cancelled)
    at = open_page(app, PAGE)
    assert _picker(at).value == cancelled
    assert not [w for w in at.warning if "from the link" in w.value]


def test_a_missing_link_falls_back_to_the_newest_done_run(app, runs):
    done, _ = runs
    app.query_params["run"] = "999"
    at = open_page(app, PAGE)
    assert _picker(at).value == done
    assert any(w.value.endswith("showing the newest done run.") for w in at.warning)


def test_with_no_done_run_history_opens_the_newest(app):
    history = ui.manager().history
    older = history.add(_cancelled(legacy_runs()[CPU_FUSION]))
    streams = dataclasses.replace(_cancelled(legacy_runs()[CPU_STREAMS]), status="failed")
    newest = history.add(streams)
    at = open_page(app, PAGE)
    assert _picker(at).value == newest
    labels = _labels(at)
    assert labels[newest].startswith("streams · ") and labels[newest].endswith(" · failed")
    assert labels[older].startswith("fusion · ") and labels[older].endswith(" · cancelled")


def _open(app, run_id):
    app.query_params["run"] = str(run_id)  # whichever run the page opens by default
    return open_page(app, PAGE)


def test_delete_asks_first_and_cancel_leaves_the_run(app, runs):
    done, cancelled = runs
    history = ui.manager().history
    at = _open(app, done)
    label = _labels(at)[done]
    widget(at.button, f"Delete run #{done}").click().run()  # one click: a question, no delete
    assert not at.exception, at.exception
    assert history.get(done) is not None
    (asked,) = [w.value for w in at.warning if w.value.startswith(f"Delete run #{done} (")]
    assert label.split(" · ")[0] in asked and "256x256" in asked  # names the run by its label
    widget(at.button, "Cancel").click().run()
    assert history.get(done) is not None
    assert not [w for w in at.warning if w.value.startswith("Delete run #")]
    assert widget(at.button, f"Delete run #{done}")  # back to the first step
    assert sorted(at.dataframe[0].value["id"]) == [done, cancelled]


def test_delete_deletes_once_confirmed(app, runs):
    done, cancelled = runs
    history = ui.manager().history
    at = _open(app, done)
    widget(at.button, f"Delete run #{done}").click().run()
    widget(at.button, f"Yes, delete run #{done}").click().run()
    assert not at.exception, at.exception
    assert history.get(done) is None and history.get(cancelled) is not None
    assert list(at.dataframe[0].value["id"]) == [cancelled]
    assert _picker(at).value == cancelled  # no done run left: the newest
    assert widget(at.button, f"Delete run #{cancelled}")  # its own question, not yet asked


def test_a_question_left_open_does_not_follow_to_another_run(app, runs):
    done, cancelled = runs
    history = ui.manager().history
    at = _open(app, done)
    widget(at.button, f"Delete run #{done}").click().run()
    _picker(at).set_value(cancelled).run()
    assert not [b for b in at.button if b.label.startswith("Yes, delete")]
    _picker(at).set_value(done).run()  # back: asked again from the start
    assert not [b for b in at.button if b.label.startswith("Yes, delete")]
    assert history.get(done) is not None
