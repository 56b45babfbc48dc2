"""Where the lab keeps its data and how long a job may run, from the environment."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

DATA_DIR_ENV = "RUNTIME_LAB_DATA_DIR"
JOB_TIMEOUT_ENV = "RUNTIME_LAB_JOB_TIMEOUT_S"
DEFAULT_JOB_TIMEOUT_S = 600.0
CEILING_FILE = "copy-ceiling.json"  # written by the worker, one entry per device and torch


DEFAULT_DATA_DIR = ".runtime_lab"


def data_dir(override: str | os.PathLike | None = None, *, create: bool = True) -> Path:
    """The data directory: explicit override, then $RUNTIME_LAB_DATA_DIR, then ./.runtime_lab
    (created unless `create` is False: read-only commands never write)."""
    raw = override or os.environ.get(DATA_DIR_ENV) or DEFAULT_DATA_DIR
    path = Path(raw).expanduser().resolve()
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path


def data_dir_problem(override: str | os.PathLike | None = None) -> str | None:
    """One line on why the data directory data_dir() would pick can't be used, naming where it
    came from and the path (e.g. "$RUNTIME_LAB_DATA_DIR /x: is a file, not a directory");
    None when it can. Checks without creating anything."""
    env = os.environ.get(DATA_DIR_ENV)
    if override:
        where, raw = "data directory", str(override)
    elif env:
        where, raw = f"${DATA_DIR_ENV}", env
    else:
        where, raw = "data directory", str(Path(DEFAULT_DATA_DIR).absolute())
    reason = dir_problem(raw)
    return None if reason is None else f"{where} {raw}: {reason}"


def dir_problem(path: str | os.PathLike) -> str | None:
    """Why `path` can't be a data directory, or None: it must be a writable directory, or be
    missing with a writable parent directory (data_dir() creates it)."""
    path = Path(path).expanduser().absolute()
    if os.path.isdir(path):
        return None if os.access(path, os.W_OK | os.X_OK) else "directory is not writable"
    if os.path.lexists(path):
        return "is a file, not a directory" if os.path.isfile(path) else _not_usable(path)
    return creation_problem(path)


def creation_problem(path: str | os.PathLike) -> str | None:
    """Why a missing `path` could not be created, or None: its parent must be a writable dir
    (only one level is created, so a mistyped parent is caught rather than made)."""
    parent = Path(path).expanduser().absolute().parent
    if not os.path.lexists(parent):
        return f"parent directory {parent} does not exist"
    if not os.path.isdir(parent):
        return f"parent {parent} is not a directory"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"parent directory {parent} is not writable"
    return None


def _not_usable(path: Path) -> str:
    # exists for lstat but not as a file or dir: a dangling link, a socket, a device
    return "is a broken symbolic link" if path.is_symlink() else "is not a directory"


def job_timeout_s() -> float:
    """Per-job timeout; a bad value in the environment falls back to the default (the CLI and
    the app say so: job_timeout_problem)."""
    try:
        value = float(os.environ.get(JOB_TIMEOUT_ENV, DEFAULT_JOB_TIMEOUT_S))
    except ValueError:
        return DEFAULT_JOB_TIMEOUT_S
    return value if value > 0 and math.isfinite(value) else DEFAULT_JOB_TIMEOUT_S


def job_timeout_problem() -> str | None:
    """Why $RUNTIME_LAB_JOB_TIMEOUT_S is not used, in one line; None when unset or usable."""
    raw = os.environ.get(JOB_TIMEOUT_ENV)
    if raw is None:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = None
    if value is not None and value > 0 and math.isfinite(value):
        return None
    return (
        f"${JOB_TIMEOUT_ENV}={raw!r} is not a positive number of seconds: jobs time out after "
        f"the default {DEFAULT_JOB_TIMEOUT_S:g} s"
    )


# Run artefacts (Chrome traces, memory snapshots, compile traces) are kept for downloads; the newest this many
# per folder stay, so a long-lived lab's disk use is bounded (an older run's report simply
# offers no trace download).
ARTEFACT_FOLDERS = ("traces", "allocator", "compile")
KEEP_ARTEFACTS = 300


def prune_artefacts(root: Path, keep: int = KEEP_ARTEFACTS) -> int:
    """Delete all but the newest `keep` files in each artefact folder; returns how many went."""
    removed = 0
    for name in ARTEFACT_FOLDERS:
        folder = root / name
        if not folder.is_dir():
            continue
        files = sorted(
            (p for p in folder.iterdir() if p.is_file()),
            key=lambda p: p.stat().st_mtime,
            reverse=True,
        )
        for old in files[keep:]:
            old.unlink(missing_ok=True)
            removed += 1
    return removed


def load_ceilings(data_dir: Path) -> dict[str, float]:
    """Measured copy ceilings (GB/s) by 'device | torch', for the sidebar; {} if none yet."""
    try:
        data = json.loads((Path(data_dir) / CEILING_FILE).read_text())
        return {key: float(entry["gbps"]) for key, entry in data.items()}
    except (OSError, ValueError, KeyError, TypeError):
        return {}
