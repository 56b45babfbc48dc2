"""End-to-end, issue 49 in headless Chromium: the what-if loop on the default Fusion form. Run,
Run again unchanged (shown at once), change Timed calls, Run: the edit is measured and the new
report says what moved since the first; in a new session, an edit after a result shown at once is
kept too (the form's own link once gave its widgets new keys and threw the edit away)."""

import os
import re

import pytest
import serving
import stillpage

pytestmark = [pytest.mark.browser, pytest.mark.slow]

if not os.path.exists(serving.CHROMIUM):
    pytest.skip(f"{serving.CHROMIUM} is not installed", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

RUN_MS = 240_000  # the default CPU Fusion Run: a cold C++ compile, three modes checked and timed
SAVED = re.compile(r"run #(\d+)")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    data = tmp_path_factory.mktemp("lab-data")
    proc, url = serving.start_server(str(data), tmp_path_factory.mktemp("server") / "log")
    try:
        yield url
    finally:
        serving.stop_server(proc)


def _fusion(browser, url):
    page = stillpage.new_page(browser)
    page.goto(f"{url}/fusion")
    expect(page.get_by_role("heading", name="Fusion & compile", level=1)).to_be_visible()
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=30_000)
    return page


def _run(page):
    page.get_by_role("button", name="Run", exact=True).click()


def _headline(page, run_id):
    """The headline box of the stored run `run_id` (green, or amber when it doubts)."""
    boxes = '[data-testid="stAlertContentSuccess"], [data-testid="stAlertContentWarning"]'
    return page.locator(boxes).filter(has_text=f"run #{run_id}")


def _timed_calls(page):
    return page.get_by_test_id("stNumberInput").filter(has_text="Timed calls").locator("input")


def _set_timed_calls(page, value):
    # after the page has drawn the result, as a person reads it first: a Run pressed while the
    # script still draws can race Streamlit's rerun (seen once in three on a busy host)
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=60_000)
    field = _timed_calls(page)
    field.fill(str(value))
    field.press("Tab")  # the value is the form's before Run is pressed, as a person's blur


def test_an_edit_after_a_result_is_measured_and_says_what_moved(server, browser):
    page = _fusion(browser, server)
    try:
        _run(page)
        first = page.get_by_text(SAVED).first
        expect(first).to_be_visible(timeout=RUN_MS)
        first_id = int(SAVED.search(first.inner_text()).group(1))
        _run(page)  # unchanged: the same result at once, said so
        expect(page.get_by_text(f"Same spec as run #{first_id}")).to_be_visible()
        _set_timed_calls(page, 100)
        _run(page)
        second = _headline(page, first_id + 1)
        expect(second).to_be_visible(timeout=RUN_MS)
        assert "repeat=100" in page.url
        expect(_timed_calls(page)).to_have_value("100")
        moved = page.get_by_text(f"Since run #{first_id}: repeat 50 → 100 · measured speed-up")
        expect(moved).to_be_visible()
        expect(moved).to_contain_text(re.compile(r"(within|beyond) noise|no spread recorded"))
        compare = page.get_by_role("link", name=f"Compare #{first_id}, #{first_id + 1}")
        expect(compare).to_be_visible()
    finally:
        page.context.close()

    # a new session: its first Run is the server's earlier result, shown at once (no rerun of
    # the page between it and the edit); the edit must reach the next Run all the same
    page = _fusion(browser, server)
    try:
        _run(page)
        expect(page.get_by_text(f"Same spec as run #{first_id}")).to_be_visible()
        _set_timed_calls(page, 100)
        _run(page)
        expect(page.get_by_text(f"Same spec as run #{first_id + 1}")).to_be_visible()
        expect(_timed_calls(page)).to_have_value("100")
        assert "repeat=100" in page.url
    finally:
        page.context.close()
