"""Where Inductor and Triton keep their caches: a folder of the caller's for a while, or the
machine's own (no torch: its child processes and the zygote use it before any compile)."""

from __future__ import annotations

import os
import tempfile
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
