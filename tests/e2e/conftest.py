"""The browser tests' Chromium (one for the session: each test gets a context of its own), page
(a fresh context per test) and the session's zygote for the servers they start."""

import os

import pytest
import serving
import stillpage


@pytest.fixture(scope="session")
def browser():
    if not os.path.exists(serving.CHROMIUM):
        pytest.skip(f"{serving.CHROMIUM} is not installed")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=serving.CHROMIUM, args=serving.CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    page = stillpage.new_page(browser)
    yield page
    page.context.close()


@pytest.fixture(scope="session", autouse=True)
def shared_zygote(session_zygote):
    """The servers these tests start fork their workers from the session's zygote
    (tests/conftest.py), where each started its own: torch imported once, not once per server."""
    return session_zygote
