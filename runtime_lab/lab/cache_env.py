"""Where Inductor and Triton keep their caches (a folder of the caller's for a while, or the
machine's own) and who wrote their entries (no torch: children and the zygote use it too)."""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

CACHE_ENV = ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR")


@contextmanager
def cache_dirs(root: Path) -> Iterator[Path]:
    """Point Inductor and Triton at cache directories under root, then restore."""
    saved = {k: os.environ.get(k) for k in CACHE_ENV}
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(root / "inductor")
    os.environ["TRITON_CACHE_DIR"] = str(root / "triton")
    try:
        yield root
    finally:
        os.environ.update({k: v for k, v in saved.items() if v is not None})
        for key in (k for k, v in saved.items() if v is None):
            os.environ.pop(key, None)


def machine_cache(name: str) -> Path:
    """A compile cache of this machine's, shared by every data directory and process (under
    $XDG_CACHE_HOME or ~/.cache); a temporary directory, cold every time, where none is writable."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    root = Path(base) / "runtime_lab" / name
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError:
        root = Path(tempfile.mkdtemp(prefix=f"runtime-lab-{name}-"))
    return root


# the lab's record of who wrote each compile-cache entry, one file per key beside Inductor's
# own folders: a file per key needs no lock where two workers share the cache folder
WRITERS = "runtime_lab-writers"


def entries(root: Path) -> int:
    """Compiled graphs in an Inductor cache folder: FX graph and AOTAutograd cache entries."""
    return sum(1 for _ in (root / "fxgraph").glob("*/*/*")) + sum(
        1 for _ in (root / "aotautograd").glob("*/*")
    )


def record_writer(root: Path, keys: tuple[str, ...], token: str) -> None:
    """Say that the job named `token` wrote these cache entries (whole or not at all: another
    worker may read it); a cache folder that can't be written just goes unrecorded."""
    folder = root / WRITERS
    body = json.dumps({"token": token, "at": time.time(), "pid": os.getpid()})
    for key in keys:
        partial = folder / f"{key}.{os.getpid()}"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            partial.write_text(body, encoding="utf-8")
            os.replace(partial, folder / f"{key}.json")
        except OSError:
            partial.unlink(missing_ok=True)


def writer(root: Path, key: str) -> dict | None:
    """Who wrote a cache entry ({"token", "at", "pid"}), or None where the lab has no record."""
    try:
        found = json.loads((root / WRITERS / f"{key}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) and isinstance(found.get("token"), str) else None
