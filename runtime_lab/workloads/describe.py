"""What a user's workload files declare, read by a short child process (the server never
imports them): `python -m runtime_lab.workloads.describe PATH[,PATH…]` prints it as JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from runtime_lab.envvars import WORKLOADS_ENV, is_file_entry, workload_entries
from runtime_lab.workloads import registry
from runtime_lab.workloads.plain import BadDeclaration, from_plain, to_plain

TIMEOUT_S = 120.0  # importing torch and the files; a file that hangs at import is cut off here


@dataclass
class Described:
    """The user workloads this server offers, and one line per file or workload refused."""

    entries: str = ""
    names: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def absolute(text: str) -> str:
    """Entries with file paths made absolute: the workers may start in another directory."""
    parts = workload_entries(text)
    return ",".join(str(Path(p).expanduser().resolve()) if is_file_entry(p) else p for p in parts)


def from_environment(given: str | None = None) -> Described:
    """The server's start (app or CLI): `given` (--workloads) or $RUNTIME_LAB_WORKLOADS, its
    paths made absolute in the environment the workers inherit (they import the files), then
    described here without importing them."""
    text = given if given is not None else os.environ.get(WORKLOADS_ENV, "")
    if text.strip():
        os.environ[WORKLOADS_ENV] = absolute(text)
        text = os.environ[WORKLOADS_ENV]
    return describe(text)


def describe(text: str | None, timeout_s: float = TIMEOUT_S) -> Described:
    """Run the describe child over the entries and register what it reports (torch-free)."""
    registry.clear_user()
    found = Described(entries=str(text or ""))
    if not found.entries.strip():
        return found
    command = [sys.executable, "-m", "runtime_lab.workloads.describe", found.entries]
    env = {k: v for k, v in os.environ.items() if k != WORKLOADS_ENV}
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s, env=env)
    except subprocess.TimeoutExpired:
        found.problems.append(
            f"reading the workload files took over {timeout_s:g} s (does one hang at import?): "
            "none of them was loaded"
        )
        return found
    try:
        data = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        tail = (done.stderr or done.stdout or "").strip().splitlines()[-1:] or ["no output"]
        found.problems.append(f"reading the workload files failed: {tail[0][:500]}")
        return found
    found.problems.extend(str(p) for p in data.get("problems", []))
    for item in data.get("workloads", []):
        try:
            info = from_plain(item.get("info"))
            registry.add_user_info(info, item.get("code") or {})
        except (BadDeclaration, ValueError, AttributeError) as exc:
            found.problems.append(f"a workload the files declare could not be read: {exc}")
            continue
        found.names.append(info.name)
    return found


def main(argv: list[str] | None = None) -> int:
    from runtime_lab.workloads import user

    args = sys.argv[1:] if argv is None else argv
    stdout, sys.stdout = sys.stdout, sys.stderr  # a file that prints must not spoil the JSON
    try:
        loaded = user.load(args[0] if args else "")
    finally:
        sys.stdout = stdout
    works = [
        {
            "info": to_plain(registry.WORKLOADS[name]),
            "code": {k: v for k, v in registry.CODE[name].items() if k in ("file", "sha256")},
        }
        for name in loaded.names
    ]
    print(json.dumps({"workloads": works, "problems": loaded.problems}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
