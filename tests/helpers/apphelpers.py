"""Helpers shared by the AppTest files: open a page, find a widget, poll until an outcome."""

import time
from pathlib import Path

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def open_page(at, page):
    at.switch_page(page)
    at.run()
    assert not at.exception, at.exception
    return at


def widget(widgets, label):
    return next(w for w in widgets if w.label == label)


def poll_until(at, predicate, timeout_s=120):
    """AppTest does not fire run_every timers: rerun the script until the page shows the outcome."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        at.run()
        assert not at.exception, at.exception
        if predicate(at):
            return at
        time.sleep(0.2)
    raise AssertionError("page never showed the expected outcome")
