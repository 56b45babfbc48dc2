"""Where the lab keeps its data (the directory, its artefacts, cached ceilings); no torch."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

DATA_DIR_ENV = "RUNTIME_LAB_DATA_DIR"
CEILING_FILE = "copy-ceiling.json"  # written by the worker, one entry per device and torch


DEFAULT_DATA_DIR = ".runtime_lab"


def data_dir(override: str | os.PathLike | None = None, *, create: bool = True) -> Path:
    """The data directory: explicit override, then $RUNTIME_LAB_DATA_DIR, then ./.runtime_lab
    (created unless `create` is False: read-only commands never write)."""
    raw = override or os.environ.get(DATA_DIR_ENV) or DEFAULT_DATA_DIR
    path = Path(raw).expanduser().resolve()
    if create:
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # checked before (dir_problem), so a race or an odd filesystem
            raise DataDirError(
                f"data directory {path} could not be created: {exc.strerror or exc}"
            ) from exc
    return path


class DataDirError(OSError):
    """The data directory could not be created; the message is one line naming it and why."""


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
        if kind := kernel_fs(path):
            return f"is on {kind}, a kernel filesystem that cannot hold files"
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
    if kind := kernel_fs(parent):  # /proc, /sys: writable for root, yet mkdir fails there
        return f"parent {parent} is on {kind}, a kernel filesystem that cannot hold files"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"parent directory {parent} is not writable"
    if len(Path(path).name.encode()) > NAME_MAX:
        return f"its name is longer than {NAME_MAX} bytes, the most a file system takes"
    return None


# kernel filesystems: what looks like a folder there is not storage (mkdir fails with ENOENT
# or EPERM, even for root, or makes a cgroup)
KERNEL_FS = frozenset(
    [
        "proc",
        "sysfs",
        "cgroup",
        "cgroup2",
        "devpts",
        "debugfs",
        "tracefs",
        "securityfs",
        "pstore",
        "bpf",
        "configfs",
        "efivarfs",
        "fusectl",
        "mqueue",
        "binfmt_misc",
        "nsfs",
    ]
)
NAME_MAX = 255  # bytes of one path component on Linux's file systems
MOUNTS = "/proc/self/mounts"


def kernel_fs(path: str | os.PathLike) -> str | None:
    """The kernel filesystem (proc, sysfs, ...) `path` lies on, else None (a disk, a tmpfs, or
    no mount table to read: then the usual checks decide)."""
    target = os.path.realpath(path)
    best, kind = "", None
    try:
        with open(MOUNTS, encoding="utf-8", errors="replace") as table:
            for line in table:
                parts = line.split()
                if len(parts) < 3:
                    continue
                point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), parts[1])
                inside = target == point or target.startswith(point.rstrip("/") + "/")
                if inside and len(point) >= len(best):
                    best, kind = point, parts[2]
    except OSError:
        return None
    return kind if kind in KERNEL_FS else None


def _not_usable(path: Path) -> str:
    # exists for lstat but not as a file or dir: a dangling link, a socket, a device
    return "is a broken symbolic link" if path.is_symlink() else "is not a directory"


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
