"""Which run a record is, wherever it is stored: the fingerprint that bundles and history share."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def fingerprint(job_id: Any, created_at: Any, host: Any, spec: Any) -> str:
    """A run's identity: its job, creation time, host and spec (never its label or result)."""
    when = float(created_at) if isinstance(created_at, (int, float)) else created_at
    text = json.dumps([job_id, when, host, spec], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def of_stored(job_id: Any, created_at: Any, env: Any, spec: Any, origin: Any) -> str:
    """A stored run's identity: the one it was imported with, else its own."""
    carried = origin.get("fingerprint") if isinstance(origin, dict) else None
    if isinstance(carried, str) and carried:
        return carried
    host = env.get("hostname") if isinstance(env, dict) else None
    return fingerprint(job_id, created_at, host, spec)
