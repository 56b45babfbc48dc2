"""Run a lab module in a fresh Python process and read the one JSON document it prints.

Both sides live here: run_module starts the child and reads its document; serve is the child's
entry point (`if __name__ == "__main__": child.serve(main)`), its argument in, its document out.
The document crosses the process boundary as JSON once; the parent turns it into typed results."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
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


def serve(main: Callable[[dict], dict], errors_as_json: bool = True) -> None:
    """The child's side: main(its JSON argument), printed as one JSON line. errors_as_json: an
    exception becomes {"error": …}, so the parent shows why beside what else ran; without it
    the child exits non-zero and run_module reports its last stderr line."""
    if not errors_as_json:
        print(json.dumps(main(json.loads(sys.argv[1]))))
        return
    try:
        found = main(json.loads(sys.argv[1]))
    except Exception as exc:
        found = {"error": f"{type(exc).__name__}: {exc}"[:500]}
    print(json.dumps(found))
