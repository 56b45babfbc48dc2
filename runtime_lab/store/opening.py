"""Opening the history file without harm: moved aside only after a failed integrity check."""

# What the history must never do (issue 26): treat a full disk, a descriptor limit or an I/O
# error as corruption. Only a database that opened and then failed `quick_check` (or that
# SQLite itself calls corrupt or not a database while checking) is moved aside, with its WAL and
# shared-memory files beside it under the same new name, so the runs the WAL still holds can be
# recovered. Everything else is one HistoryError and changes nothing.

from __future__ import annotations

import sqlite3
import time
from contextlib import closing
from pathlib import Path

# SQLite's primary result codes (sqlite3.SQLITE_* exists only from Python 3.11 on)
_CORRUPT, _NOTADB = 11, 26
_WHY = {
    3: "permission denied",
    5: "the database is busy (another process is writing)",
    6: "the database is locked by another process",
    7: "out of memory",
    8: "the file or its folder is read-only",
    10: "a disk I/O error",
    13: "the disk is full",
    14: "the file cannot be opened (too many open files, no permission, or no such folder)",
}
SIDE_FILES = ("-wal", "-shm")


class HistoryError(Exception):
    """The history database cannot be used right now; the message says why and what to do."""


class Corrupt(Exception):
    """The database opened and failed its integrity check; the message is SQLite's finding."""


def error_code(exc: sqlite3.Error) -> int | None:
    """SQLite's primary result code of an error (the extended code's low byte)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return None if code is None else code & 0xFF


def transient(path: Path, exc: sqlite3.Error, doing: str = "opened") -> HistoryError:
    """A HistoryError for an error that says nothing about the file's health."""
    why = _WHY.get(error_code(exc) or -1, "a database error")
    return HistoryError(
        f"history database {path} could not be {doing}: {why} ({exc}); nothing was changed, "
        "try again once that is fixed"
    )


def check(path: Path, *, readonly: bool) -> None:
    """Open the file and run SQLite's quick integrity check. Corrupt when it failed; a
    HistoryError (nothing changed) when the file could not be opened or read at all."""
    try:
        with closing(connect(path, readonly=readonly, timeout_s=5.0)) as conn:
            found = conn.execute("PRAGMA quick_check").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        if error_code(exc) in (_CORRUPT, _NOTADB):
            raise Corrupt(str(exc)) from exc
        raise transient(path, exc) from exc
    if found != "ok":
        raise Corrupt(f"integrity check failed: {found}")


def connect(path: Path, *, readonly: bool, timeout_s: float) -> sqlite3.Connection:
    """A connection; read-only ones can neither create the file nor change it."""
    if readonly:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=timeout_s)
    else:
        conn = sqlite3.connect(path, timeout=timeout_s)
    conn.row_factory = sqlite3.Row
    # text that is not UTF-8 (a row written by hand) reads with U+FFFD, not as an error that
    # would take the whole list down for everyone
    conn.text_factory = lambda raw: raw.decode("utf-8", "replace")
    return conn


def move_aside(path: Path) -> Path:
    """Rename the database and its WAL and shared-memory files to `<name>.corrupt-<time>`
    (+ the same suffixes): nothing deleted, and SQLite opens the moved pair as one database."""
    stamp = int(time.time())
    aside = path.with_name(f"{path.name}.corrupt-{stamp}")
    number = 1
    while any(Path(f"{aside}{s}").exists() for s in ("", *SIDE_FILES)):
        aside = path.with_name(f"{path.name}.corrupt-{stamp}.{number}")
        number += 1
    moves = [(path, aside)] + [
        (Path(f"{path}{s}"), Path(f"{aside}{s}")) for s in SIDE_FILES if Path(f"{path}{s}").exists()
    ]
    done: list[tuple[Path, Path]] = []
    try:
        for source, target in moves:
            source.replace(target)
            done.append((source, target))
    except OSError as exc:
        for source, target in reversed(done):  # a database never stands apart from its WAL
            target.replace(source)
        raise HistoryError(
            f"history database {path} failed its integrity check and could not be moved aside "
            f"({exc}); nothing was changed: move it away by hand to start a new one"
        ) from exc
    return aside


def corrupt_readonly(path: Path, finding: str) -> HistoryError:
    """What a read-only command says about a corrupt file: it never moves it."""
    return HistoryError(
        f"history database {path} is damaged ({finding}); nothing was changed: the app or "
        "`python -m runtime_lab run` moves it aside and starts a new one"
    )
