"""Which user code a run ran (its workload file's name and sha256), and whether it has changed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from runtime_lab.workloads import registry as workloads
from runtime_lab.workloads.provenance import code_problem


def workload_code(run: Any) -> dict[str, Any] | None:
    """The user workload's code a run recorded (worker.workload_code), else None."""
    worker = getattr(run, "worker", None) or {}
    code = worker.get("workload_code") if isinstance(worker, dict) else None
    return code if isinstance(code, dict) and code.get("sha256") else None


def code_doubt(run: Any) -> str | None:
    """Why the run's recorded code is not what it claims (provenance.code_problem), else None."""
    code = workload_code(run)
    return code_problem(workload_name(run), code) if code is not None else None


def workload_name(run: Any) -> str:
    """The run's workload (a user's exists only under today's option name)."""
    options = (getattr(run, "spec", None) or {}).get("options") or {}
    return str(options.get("workload") or "")


def code_line(run: Any) -> str | None:
    """One line: the file and sha256 the run's workload came from, and what this lab has now
    (the same code, other code, or no such workload). None for built-in workloads."""
    code = workload_code(run)
    if code is None:
        return None
    name, sha = workload_name(run), str(code["sha256"])
    line = f"Your workload {name} from {Path(str(code.get('file', '?'))).name}, sha256 {sha[:12]}"
    if why := code_problem(name, code):  # a bundle written by hand: its claim is not believed
        return f"{line}: {why}."
    now = workloads.CODE.get(name, {}).get("sha256")
    if name not in workloads.WORKLOADS:
        return line + ": this lab has no workload of that name now (not loaded here)."
    if now and now != sha:
        return line + f": the file loaded here now has other code (sha256 {now[:12]})."
    return line + "."
