"""Whether a run's recorded workload code is what it claims: source, sha256 and workload agree."""

# A run of a user's workload records its file, sha256 and source (user.code_of). A bundle is a
# stranger's JSON, so nothing says the three agree: a run could show one file's hash beside
# other code, or a built-in workload's run could carry "your code". Both are checked here, on
# import (store/bundle_check.py) and wherever the code is shown (view/code.py), the same way.

from __future__ import annotations

import hashlib
from typing import Any

from runtime_lab.workloads.registry import NAMES

MISMATCH = "source does not match its hash"


def code_problem(workload: str, code: Any) -> str | None:
    """One line on why the recorded code can't be what it claims, else None. A source cut at
    the lab's limit (truncated) can't be hashed whole: the reader says so instead."""
    if code is None:
        return None
    if workload in NAMES:
        return f"workload {workload!r} is built in, yet user code is recorded for it"
    if not isinstance(code, dict) or code.get("truncated"):
        return None
    source, sha = code.get("source"), code.get("sha256")
    if not isinstance(source, str) or not isinstance(sha, str):
        return None  # conform.py names a field of the wrong type
    found = hashlib.sha256(source.encode("utf-8", errors="surrogatepass")).hexdigest()
    if found != sha.lower():
        return f"{MISMATCH} (sha256 of the source is {found[:12]}, recorded {sha[:12]})"
    return None
