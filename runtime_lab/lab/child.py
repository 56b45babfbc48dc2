"""Run a lab module in a fresh Python process and read the one JSON document it prints."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_module(
    module: str,
    args: dict,
    timeout_s: float,
    env: dict[str, str] | None = None,
    drop: tuple[str, ...] = (),
) -> tuple[dict | None, str | None]:
    """(the document, None) or (None, why not): a timeout, a crash's last stderr line, no JSON.
    The child gets this environment (minus `drop`, plus `env`) with the lab on its path."""
    base = {k: v for k, v in os.environ.items() if k not in drop}
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    command = [sys.executable, "-m", module, json.dumps(args)]
    try:
        done = subprocess.run(
            command,
            env={**base, **(env or {}), "PYTHONPATH": path},
            capture_output=True,
            text=True,
            timeout=timeout_s,
            cwd=ROOT,
        )
    except subprocess.TimeoutExpired:
        return None, f"did not finish in {timeout_s:g} s"
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        tail = (done.stderr or "no output").strip().splitlines()[-1:] or ["no output"]
        return None, f"exit {done.returncode}: {tail[0][:300]}"
    return json.loads(lines[-1]), None
