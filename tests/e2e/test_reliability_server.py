"""A real Streamlit server under load and under SIGKILL (issue 7.4, 7.5), driven by Chromium.

Eight browser sessions press Run at once: all complete, each draws its own run, and the worker's
job intervals (its own stamps, stored in history) never overlap. Then the server is killed with
SIGKILL during a run: the database is intact with every completed run, and a new server on the
same data directory carries on.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import sqlite3
import time
from urllib.parse import urlencode

import pytest
import serving  # the server start/stop, its health check and Chromium's flags
import stillpage  # a page with animations off

from runtime_lab.store.history import History

pytestmark = [pytest.mark.browser, pytest.mark.slow]

if not os.path.exists(serving.CHROMIUM):
    pytest.skip(f"{serving.CHROMIUM} is not installed", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
RUN_ID = re.compile(r"run #(\d+)")


@pytest.fixture
def served(tmp_path):
    """A server on its own data dir; yields (process, url, data dir)."""
    data = tmp_path / "data"
    proc, url = serving.start_server(str(data), tmp_path / "server.log")
    try:
        yield proc, url, data
    finally:
        serving.stop_server(proc)


@pytest.fixture
def opened():
    """The pages a test opens, each its own browser session, closed after it: the browser is
    the test session's, and a page left open goes on polling its server."""
    pages = []
    yield pages
    for page in pages:
        page.context.close()


def _streams_page(browser, url, shape, opened, repeat=3):
    """A new browser session on the Streams page, its form filled by a link (not submitted):
    the sessions pressing Run together are the point here, not the typing (filling each form by
    hand, widget by widget, was a page rerun per widget, eight times over)."""
    page = stillpage.new_page(browser, timeout_ms=60_000)
    opened.append(page)
    page.goto(f"{url}/streams?{urlencode({'shape': shape, 'device': 'cpu', 'repeat': repeat})}")
    expect(_shape_input(page)).to_have_value(shape)
    timed = page.get_by_test_id("stNumberInput").filter(has_text="Timed calls").locator("input")
    expect(timed).to_have_value(str(repeat))
    return page


def _shape_input(page):
    """The form's Shape input, once there is one: while a rerun draws the page, its stale form
    can stand beside the new one (two Shape inputs; seen once the workers came forked, faster)."""
    shape = page.get_by_test_id("stTextInput").filter(has_text="Shape").locator("input")
    expect(shape).to_have_count(1, timeout=30_000)
    return shape


def _run_button(page):
    return page.get_by_role("button", name="Run", exact=True)


def _run_id(page, number=None, timeout_ms=120_000):
    """The run number the page's headline shows (waiting for `number` if given: the previous
    run's headline stays on screen until the rerun replaces it). Green, or amber where the
    verdict doubts the time (a CPU streams run on a busy host): a passed run either way."""
    wanted = re.compile(rf"run #{number}\b") if number else RUN_ID
    boxes = '[data-testid="stAlertContentSuccess"], [data-testid="stAlertContentWarning"]'
    headline = page.locator(boxes).filter(has_text=wanted)
    expect(headline).to_be_visible(timeout=timeout_ms)
    return int(RUN_ID.search(headline.inner_text()).group(1))


def test_eight_browser_sessions_at_once_each_get_their_own_run(served, browser, opened):
    _proc, url, data = served
    # distinct specs (nothing is joined), each a few seconds of matmuls on the CPU: the eight
    # clicks land over seconds, and with workers forked in 0.06 s small jobs ended before the
    # last click (busiest 3), so the queue never held them together
    shapes = [f"768x{750 + i}" for i in range(8)]
    pages = [_streams_page(browser, url, shape, opened, repeat=20) for shape in shapes]
    clicked = time.time()
    for page in pages:  # eight sessions' Run within a fraction of a second
        _run_button(page).click(no_wait_after=True)
    ids = [_run_id(page) for page in pages]
    history = History(data / "history.sqlite3")
    runs = [history.get(i) for i in ids]
    assert len(set(ids)) == 8
    for shape, run in zip(shapes, runs, strict=True):
        assert run["status"] == "done" and "x".join(map(str, run["spec"]["shape"])) == shape
    assert all(run["created_at"] >= clicked - 1 for run in runs)
    spans = sorted((run["started_at"], run["finished_at"], run["id"]) for run in runs)
    for (_, end, first), (start, _, second) in zip(spans, spans[1:], strict=False):
        assert end <= start, f"runs {first} and {second} overlap in the worker"
    # they were in the queue together: at the busiest moment, how many submitted, not finished
    busiest = max(
        sum(s["created_at"] <= r["created_at"] < s["finished_at"] for s in runs) for r in runs
    )
    assert busiest >= 4, [(r["created_at"], r["started_at"], r["finished_at"]) for r in runs]


def test_server_killed_mid_run_keeps_every_completed_run(served, browser, opened, tmp_path):
    proc, url, data = served
    page = _streams_page(browser, url, "64x64", opened)
    done = []
    for number, shape in enumerate(("64x64", "64x65", "64x66"), start=1):
        _shape_input(page).fill(shape)
        _run_button(page).click()
        done.append(_run_id(page, number))  # a fresh data dir: runs are numbered from 1
    db = data / "history.sqlite3"
    before = {i: History(db).get(i) for i in done}
    # a long run (10000 timed calls of a 512x512 matmul), killed with its server mid-way
    _shape_input(page).fill("512x512")
    timed = page.get_by_test_id("stNumberInput").filter(has_text="Timed calls").locator("input")
    timed.fill("10000")
    timed.press("Tab")
    _run_button(page).click()
    expect(page.get_by_text(re.compile(r"timing \d+/10000")).first).to_be_visible(timeout=60_000)
    os.killpg(proc.pid, signal.SIGKILL)  # the server and its worker, no cleanup handlers
    proc.wait(timeout=30)

    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    history = History(db)
    assert history.notice is None
    assert [r["id"] for r in history.list()] == done[::-1]  # the killed run was never finished
    assert {i: history.get(i) for i in done} == before

    # a new server on the same data carries on: the runs are listed, a new one is recorded
    proc2, url2 = serving.start_server(str(data), tmp_path / "server2.log")
    try:
        again = _streams_page(browser, url2, "64x70", opened)
        _run_button(again).click()
        assert _run_id(again) == done[-1] + 1
    finally:
        serving.stop_server(proc2)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
