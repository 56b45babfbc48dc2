"""Run Python in a fresh child process under a time limit and read what it prints.

Every child the lab starts goes through run_python (a time limit, stdin closed, the lab on its
path, one line saying why it did not end well); run_module is its form for a lab module that
prints one JSON document, and serve is that module's side (`if __name__ == "__main__":
child.serve(main)`), its argument in, its document out. Standard library only: the server
starts children too (the GPU count, the workload files) and never imports torch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_python(
    argv: list[str],
    timeout_s: float,
    env: dict[str, str] | None = None,
    drop: tuple[str, ...] = (),
    cwd: Path | None = ROOT,
) -> tuple[str, str | None]:
    """`python ARGV…`: (its stdout, None), or (what it printed, why not: a timeout, or a
    non-zero exit with its last stderr line). The child gets this environment (minus `drop`,
    plus `env`) with the lab on its path, in `cwd` (None: this process's)."""
    base = {k: v for k, v in os.environ.items() if k not in drop}
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    try:
        done = subprocess.run(
            [sys.executable, *argv],
            env={**base, **(env or {}), "PYTHONPATH": path},
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout_s,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return "", f"did not finish in {timeout_s:g} s"
    except OSError as exc:  # no process could start (no memory, no file descriptors)
        return "", f"could not start: {exc}"
    if done.returncode == 0:
        return done.stdout, None
    tail = (done.stderr or "no output").strip().splitlines()[-1:] or ["no output"]
    return done.stdout, f"exit {done.returncode}: {tail[0][:300]}"


def run_module(
    module: str,
    args: dict,
    timeout_s: float,
    env: dict[str, str] | None = None,
    drop: tuple[str, ...] = (),
    cwd: Path | None = ROOT,
) -> tuple[dict | None, str | None]:
    """(the document, None) or (None, why not): a timeout, a crash's last stderr line, no JSON."""
    out, why = run_python(["-m", module, json.dumps(args)], timeout_s, env, drop, cwd)
    lines = [line for line in out.splitlines() if line.startswith("{")]
    if not lines:
        return None, why or "exit 0: no JSON document printed"
    try:
        return json.loads(lines[-1]), None
    except ValueError:
        return None, f"its last JSON line is not JSON: {lines[-1][:100]}"


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
