"""Where a run was recorded, in words: an imported run names the host and GPU it came from."""

from __future__ import annotations

from typing import Any

UNNAMED = "an unnamed host"


def imported(origin: Any) -> bool:
    """Whether a run's origin (Run.origin) says it came from a bundle: any value but None (an
    origin that no longer parses still marks a stranger's run)."""
    return origin is not None


def imported_from(origin: Any) -> str:
    """Empty for a run recorded here; else "imported from HOST (GPU)" as its bundle said, raw
    (the page escapes it as markdown, the CLI as terminal text)."""
    if not imported(origin):
        return ""
    details = origin if isinstance(origin, dict) else {}
    host, gpu = details.get("origin_host"), details.get("origin_gpu")
    where = host if isinstance(host, str) and host.strip() else UNNAMED
    return f"imported from {where}" + (f" ({gpu})" if isinstance(gpu, str) and gpu else "")
