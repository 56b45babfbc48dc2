"""A stored run on the History page: its listed times, reading, drawing and deleting it (after
a confirmation), each failing for that run alone."""

# The import checks every value a reader uses (store/values.py, store/conform.py), but a
# history may hold runs imported before it did, or rows written by hand: such a run gets one
# error naming it, and the list, the picker and Delete stay usable for everyone.

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from typing import Any

import streamlit as st

from runtime_lab import record
from runtime_lab.compare.moved import comparable
from runtime_lab.record import Run
from runtime_lab.store.history import History
from runtime_lab.ui.results import draw, history_call
from runtime_lab.view.text import markdown as md

_LOG = logging.getLogger(__name__)
REASON_CHARS = 300
ASKED = "history-delete-asked"  # session state: the run whose Delete waits for a confirmation


def when(stamp: Any) -> str:
    """A listed time: local date and time, `not a time (1e+300)` for one no clock gives, and
    empty for none (a run that never finished)."""
    if stamp is None or (isinstance(stamp, float) and math.isnan(stamp)):
        return ""  # pandas holds a NULL as NaN (and SQLite stores a NaN as NULL)
    return record.when(stamp)


def reason(exc: BaseException) -> str:
    """What went wrong, on one line and cut: the exception's type and message, no traceback."""
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    return text if len(text) <= REASON_CHARS else text[:REASON_CHARS] + "…"


def guarded(what: str, work: Callable[..., Any], *args: Any) -> bool:
    """work(*args); when it raises, one error `what: reason` (as text) in its place, the
    traceback only in the server log. True when it ran through."""
    try:
        work(*args)
    except Exception as exc:  # a stored run's data, not this code, is what failed here
        _LOG.warning("%s", what, exc_info=True)
        st.error(f"{md(what)}: {md(reason(exc))}", icon=":material/broken_image:")
        return False
    return True


def read(history: History, run_id: int) -> Run | None:
    """A stored run, or None with one error when its row does not read (a JSON column that is
    not JSON); a locked or unreadable database is history_call's message."""
    try:
        return history_call(history.get, run_id)
    except Exception as exc:
        _LOG.warning("run #%s cannot be read", run_id, exc_info=True)
        st.error(
            f"Run #{run_id} cannot be read: {md(reason(exc))}. Delete it above, or see "
            "docs/reliability.md",
            icon=":material/broken_image:",
        )
        return None


def draw_stored(history: History, run_id: int) -> None:
    """The run's report, or one error for this run when its stored values don't draw."""
    run = read(history, run_id)
    if run is not None:
        what = f"Run #{run_id} cannot be drawn (delete it above if it should go)"
        guarded(what, lambda: draw(run, before=earlier(history, run)))


def earlier(history: History, run: Run) -> Run | None:
    """The newest finished run before `run` of its experiment and workload, which its report
    says what moved since; None where there is none (or history can't say)."""
    rows = history_call(history.list, experiment=run.spec.get("experiment")) or []
    for row in rows:  # newest first
        if row["id"] < run.id and row["status"] == "done" and comparable(row["spec"], run.spec):
            return read(history, row["id"])
    return None


def _remove(history: History, run_id: int) -> bool:
    """Delete a run (History.delete: its imported files too); True when it went. A row that
    History cannot parse to delete is said as one error, like a locked database."""
    try:
        return bool(history_call(history.delete, run_id))
    except Exception as exc:
        _LOG.warning("run #%s cannot be deleted", run_id, exc_info=True)
        st.error(f"Run #{run_id} cannot be deleted: {md(reason(exc))}")
        return False


def delete(history: History, run_id: int, label: str) -> bool:
    """Delete in two steps: the button asks, naming the run and its label; only the
    confirmation deletes, and Cancel (or opening another run) leaves it. True when it went."""
    run_id = int(run_id)
    if st.session_state.get(ASKED) != run_id:
        st.session_state.pop(ASKED, None)  # asked about a run no longer open: not this one
        st.button(f"Delete run #{run_id}", icon=":material/delete:", on_click=_ask, args=(run_id,))
        return False
    st.warning(
        f"Delete run #{run_id} ({md(label)})? It goes for good, with any files its import "
        "brought; export it first (bundles, above) to keep a copy.",
        icon=":material/delete:",
    )
    yes, no = st.columns(2)
    no.button("Cancel", key="delete-cancel", on_click=_forget)  # the rerun shows Delete again
    if not yes.button(f"Yes, delete run #{run_id}", type="primary"):
        return False
    _forget()  # in the script, not a callback: the confirmation must still be drawn to count
    return _remove(history, run_id)


def _ask(run_id: int) -> None:
    st.session_state[ASKED] = run_id


def _forget() -> None:
    st.session_state.pop(ASKED, None)
