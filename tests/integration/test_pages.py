"""AppTest for app.py and every page: navigation, a real run through the worker, failures shown."""

import os
import signal
import time

from apphelpers import APP, open_page, poll_until, widget
from fusiondata import result as _result
from fusiondata import run as _run
from streamlit.testing.v1 import AppTest

from runtime_lab import ui
from runtime_lab.ui.shell import WORKER_DOTS


def _run_streams(at, shape="64x64", repeat=5):
    widget(at.text_input, "Shape").set_value(shape)
    widget(at.selectbox, "Device").set_value("cpu")
    at.number_input[1].set_value(repeat)
    at.button[0].click()
    at.run()


def _headline_shown(at) -> bool:
    """A done run's headline: green, or amber where a CPU's timing of it is noisy or contended."""
    return len(at.success) + len(at.warning) > 0


def test_overview_and_sidebar(worker_app):
    assert not worker_app.exception
    assert worker_app.title[0].value == "Runtime Lab"
    assert ui.manager().wait  # the manager is a per-server singleton shared with the test
    deadline = time.monotonic() + 120
    idle = lambda: all(x["worker_state"] == "idle" for x in ui.manager().status()["lanes"])  # noqa: E731
    while not (ui.manager().env and idle()) and time.monotonic() < deadline:
        time.sleep(0.2)
    # AppTest drops st.navigation apps' sidebar on reruns (a real browser keeps it): fresh run
    fresh = AppTest.from_file(APP, default_timeout=60)
    fresh.run()
    sidebar = [m.value for m in fresh.sidebar.markdown]
    workers = [m for m in sidebar if m.startswith("**Worker")]  # one line per device's worker
    assert len(workers) == len(ui.manager().lanes), sidebar
    assert all(f"{WORKER_DOTS['idle']} idle (pid " in m for m in workers), sidebar
    gpus = ui.manager().env["gpus"]
    expected = gpus[0]["name"] if gpus else "CPU only"
    assert any(expected in m for m in sidebar)
    assert fresh.sidebar.expander[0].label == "Environment"


def test_streams_page_runs_on_cpu_and_draws_charts(worker_app):
    at = open_page(worker_app, "app_pages/streams.py")
    assert at.title[0].value == "Streams & events"
    _run_streams(at)
    poll_until(at, _headline_shown)
    said = [box.value for box in (*at.success, *at.warning)]
    assert said[0].startswith("No CUDA streams on this CPU: the matmul ran on the host"), said
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["tolerance"] == "pass"
    # timing (no stream chain on CPU), and the job's timeline in the Raw tab
    assert len(at.get("vega_lite_chart")) == 2
    timeline = [e.label for e in at.expander if e.label.startswith("Where the time went")]
    assert timeline and " s in the worker; longest: " in timeline[0], timeline
    assert any("CUDA streams and events need a GPU" in c.value for c in at.caption)


def test_bad_shape_is_a_message_not_a_run(app):
    at = open_page(app, "app_pages/streams.py")
    at.text_input[0].set_value("0x-3")
    at.button[0].click()
    at.run()
    assert not at.exception
    assert any("shape" in e.value and "1 to 4" in e.value for e in at.error)
    assert ui.manager().history.list() == []


def test_device_choices_are_the_machines_own(app):
    at = open_page(app, "app_pages/streams.py")
    poll_until(at, lambda a: bool(ui.manager().env))
    gpus = ui.manager().env["gpus"]
    assert widget(at.selectbox, "Device").options == ["auto", "cpu"] + [
        f"cuda:{g['index']}" for g in gpus
    ]


def test_killed_worker_shows_a_failed_run_and_the_next_succeeds(worker_app):
    at = open_page(worker_app, "app_pages/streams.py")
    _run_streams(at, shape="512x512", repeat=10000)
    jobs = ui.manager()
    poll_until(
        at,
        lambda a: (
            "timing" in (jobs.status()["running"] or "")
            or any("timing" in m.value for m in a.markdown)
        ),
        120,
    )
    os.kill(jobs.status()["worker_pid"], signal.SIGKILL)
    poll_until(at, lambda a: any("failed" in e.value for e in a.error))
    assert any("SIGKILL" in c.value for c in at.caption)
    _run_streams(at, shape="64x64", repeat=5)
    poll_until(at, _headline_shown)
    statuses = [r["status"] for r in jobs.history.list()]
    assert statuses == ["done", "failed"]


def test_history_page_lists_opens_and_deletes(app):
    at = open_page(app, "app_pages/streams.py")
    _run_streams(at)
    poll_until(at, _headline_shown)
    at = open_page(at, "app_pages/history.py")
    assert at.title[0].value == "History"
    options = at.selectbox[2].options
    assert any(option.startswith("#1: streams · matmul · 64x64") for option in options)
    assert len(at.get("vega_lite_chart")) == 1
    next(b for b in at.button if b.label.startswith("Delete run")).click().run()  # asks first
    next(b for b in at.button if b.label.startswith("Yes, delete run")).click().run()
    assert any("No runs recorded yet" in i.value for i in at.info)


def test_history_redraws_a_stored_fusion_run(app):
    run = _run(_result())
    stored = {
        **run,
        "job_id": "j",
        "experiment": "fusion",
        "device": "cuda:0",
        "label": "fusion 4096x4096 float32 cuda:0",
    }
    stored |= {"env": {}, "error": None, "created_at": 1.0, "started_at": 1.0, "finished_at": 2.0}
    from runtime_lab.record import Run

    run_id = ui.manager().history.add(Run.from_dict(stored))
    at = open_page(app, "app_pages/history.py")
    assert at.selectbox[2].value == run_id
    assert at.success[0].value.startswith("fusion cuda:0 4096x4096 float32")
    assert len(at.get("vega_lite_chart")) == 6
    assert not at.exception
