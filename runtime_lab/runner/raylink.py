"""The optional ray package: imported where used, the live connection, its errors in one line."""

from __future__ import annotations

import re

from runtime_lab.runner.devices import RayUnavailable

INSTALL_HINT = "the Ray backend needs the optional ray package: pip install -r requirements-ray.txt"
_ANSI = re.compile(r"\x1b\[[0-9;]*m")

# ray is imported only inside these functions, so that the server imports (and starts)
# without the optional package


def required():
    """The ray module, or RayUnavailable saying how to install it."""
    try:
        import ray
    except ImportError as exc:
        raise RayUnavailable(INSTALL_HINT) from exc
    return ray


def connected():
    """The ray module while connected, else None: ray.kill and ray.wait after ray.shutdown()
    start a new local Ray instance (seen in 2.60), which closing must never do."""
    try:
        import ray
    except ImportError:
        return None
    return ray if ray.is_initialized() else None


def summary(exc: BaseException) -> str:
    """Ray's errors run to a dozen lines with a traceback: the first and the last say it."""
    lines = [line.strip() for line in _ANSI.sub("", str(exc)).splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    text = lines[0] if len(lines) == 1 else f"{lines[0]} … {lines[-1]}"
    return text[:500]
