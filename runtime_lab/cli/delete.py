"""`python -m runtime_lab delete ID`: remove one recorded run, as the History page's Delete does."""

# It never reads the run's report, so a run that cannot be drawn (imported before the bundle
# checks, or written by hand) can always be removed; History.delete also removes the files its
# import wrote.

from __future__ import annotations

import argparse
import sys
from typing import Any

from runtime_lab import config
from runtime_lab.cli import argcheck
from runtime_lab.view.text import terminal

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2  # as main.py's: a bad or unknown id is 2


def add_parser(commands: Any) -> None:
    sub = commands.add_parser(
        "delete",
        help="remove one recorded run from history (and the files its import wrote)",
        description="Remove one run from history, as the History page's Delete button does.",
    )
    sub.add_argument("id", metavar="ID", help="the run's id, as `history` lists it")


def main(args: argparse.Namespace) -> int:
    from runtime_lab.store.history import History, HistoryError  # sqlite only when it is used

    try:
        argcheck.data_dir(args.data_dir)
        run_id = argcheck.integer("ID", args.id, *argcheck.RUN_ID_RANGE)
    except argcheck.ArgError as exc:
        return _usage(str(exc))
    root = config.data_dir(args.data_dir, create=False)
    path = root / "history.sqlite3"
    if not path.exists():  # nothing to delete: never create a history to say so
        return _usage(f"no run #{run_id} in history: no history in {root}")
    try:
        history = History(path)
        if history.notice:
            print(f"runtime_lab: warning: {terminal(history.notice)}", file=sys.stderr)
        label = _label(history, run_id)
        if not history.delete(run_id):
            return _usage(f"no run #{run_id} in history (`history` lists the runs)")
    except HistoryError as exc:
        print(f"runtime_lab: error: {terminal(exc)}", file=sys.stderr)
        return EXIT_FAILED
    except ValueError as exc:  # History.delete parses the row (its files); this one does not
        what = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
        print(f"runtime_lab: error: cannot delete run #{run_id}: {terminal(what)}", file=sys.stderr)
        return EXIT_FAILED
    print(f"deleted run #{run_id}" + (f" ({terminal(label)})" if label else ""))
    return EXIT_OK


def _label(history: Any, run_id: int) -> str | None:
    """The run's label for the confirmation line; None when the run is gone or its row does not
    read (it is deleted all the same)."""
    try:
        run = history.get(run_id)
    except (ValueError, TypeError):  # a JSON column that is not JSON
        return None
    return run.label if run is not None and isinstance(run.label, str) else None


def _usage(message: str) -> int:
    print(f"runtime_lab: error: {terminal(message)}", file=sys.stderr)
    return EXIT_USAGE
