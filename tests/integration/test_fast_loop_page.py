"""The page draws what a job has measured while its evidence phase still runs (issue 27), from
the job's partial result, never stored; then the whole run once it ends (replay workers)."""

from __future__ import annotations

import threading

import pytest
import replay
import streamlit as st
from apphelpers import APP, open_page, poll_until, widget
from streamlit.testing.v1 import AppTest

from runtime_lab.runner import pool

RELEASE = threading.Event()  # the evidence phase ends when the test says so
TIMED = threading.Event()  # and the timing phase (headline -> evidence)
PARTIAL = "Figures so far"


class PhasedReplay(replay.ReplayWorker):
    """A replay worker that sends the recorded result as the headline's partial result, then as
    the timing phase's once TIMED is set, and the final result once RELEASE is: the page is
    seen at each phase."""

    def send(self, message):
        if message.get("op") != "run":
            return super().send(message)
        final = self.answer(message["job_id"], message["spec"])
        partial = {"op": "phase", "job_id": message["job_id"], "partial": final["result"]}
        self.answers.put({**partial, "phase": "headline"})

        def later():
            TIMED.wait(60)
            self.answers.put({**partial, "phase": "evidence"})
            RELEASE.wait(60)
            self.answers.put(final)

        threading.Thread(target=later, daemon=True).start()
        return None


@pytest.fixture
def phased_app(data_dir, monkeypatch):
    replay.install(monkeypatch)
    monkeypatch.setattr(pool, "WorkerProcess", PhasedReplay)
    RELEASE.clear()
    TIMED.clear()
    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    yield at
    TIMED.set()
    RELEASE.set()
    st.cache_resource.clear()


def _infos(at):
    return [i.value for i in at.info]


def test_the_timing_figures_are_drawn_before_the_evidence_and_stored_only_at_the_end(phased_app):
    from runtime_lab import ui

    at = open_page(phased_app, "app_pages/fusion.py")
    widget(at.text_input, "Shape").set_value("64x64")
    at.button[0].click()
    at.run()
    poll_until(at, lambda a: any(PARTIAL in i for i in _infos(a)), timeout_s=30)
    jobs = ui.manager()
    job = jobs.get(at.session_state["job:fusion"])
    assert not job.finished and job.phase == "headline"
    assert any("Still to come: the back-to-back loops" in i for i in _infos(at)), _infos(at)
    TIMED.set()
    poll_until(at, lambda a: any("the timing is done" in i for i in _infos(a)), timeout_s=30)
    assert jobs.get(job.id).phase == "evidence" and not jobs.get(job.id).finished
    assert jobs.history.list() == []  # shown, not recorded
    headline = _headlines(at)  # amber until the figures still to come are in (issue 37)
    assert any("fusion" in h.lower() or "×" in h for h in headline), headline
    assert at.metric, "the partial report has its metrics"
    RELEASE.set()
    poll_until(at, lambda a: not any(PARTIAL in i for i in _infos(a)), timeout_s=30)
    [stored] = jobs.history.list()
    assert jobs.get(job.id).run_id == stored["id"]
    assert any(f"run #{stored['id']}" in h for h in _headlines(at))


def _headlines(at):
    """The headline box's text, whichever colour its verdict gave it."""
    return [box.value for box in (*at.success, *at.warning, *at.error)]


def _done(at):
    return any("run #" in h for h in _headlines(at))


def test_the_same_spec_again_is_shown_at_once_and_measured_again_on_request(app):
    from runtime_lab import ui

    at = open_page(app, "app_pages/fusion.py")
    widget(at.text_input, "Shape").set_value("64x64")
    at.button[0].click()
    poll_until(at, _done, timeout_s=30)
    jobs = ui.manager()
    [first] = jobs.history.list()
    at.button[0].click()  # Run again with nothing changed
    at.run()
    again = [i.value for i in at.info if "Same spec as run" in i.value]
    assert again and f"run #{first['id']}" in again[0], [i.value for i in at.info]
    assert len(jobs.history.list()) == 1  # nothing measured: the user is told so
    widget(at.button, "Measure again").click()
    poll_until(at, lambda a: len(jobs.history.list()) == 2 and _done(a), timeout_s=30)
    assert not [i.value for i in at.info if "Same spec as run" in i.value]
    # asked to measure again: all of it, no compile figure taken from the run shown (issue 49)
    assert jobs.get(at.session_state["job:fusion"]).may_reuse is False
    widget(at.text_input, "Shape").set_value("32x32")  # a new spec is measured, not offered
    at.button[0].click()
    poll_until(at, lambda a: len(jobs.history.list()) == 3, timeout_s=30)
