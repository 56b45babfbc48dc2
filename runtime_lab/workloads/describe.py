"""What a user's workload files declare, each file read by a short child process of its own."""

# The server never imports the files: `python -m runtime_lab.workloads.describe '{"entry": …}'`
# imports one and prints what it declares as JSON. One child per file, under a time limit, so a
# file that exits, crashes or loops at import costs only itself: it is named in one line and
# dropped, and the workers (which inherit the environment) are given only the files that read.

from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runtime_lab.envvars import WORKLOADS_ENV, entry_problem, is_file_entry, workload_entries
from runtime_lab.lab import child  # torch-free: it only starts the child
from runtime_lab.workloads import registry
from runtime_lab.workloads.plain import BadDeclaration, from_plain, to_plain
from runtime_lab.workloads.user import IMPORT_S

READERS = 4  # files read at once: each child imports torch, and there are 2 cores here


@dataclass
class Described:
    """The user workloads this server offers, and one line per file or workload refused."""

    entries: str = ""
    names: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # the entries the workers are given


def absolute(text: str) -> str:
    """Entries with file paths made absolute: the workers may start in another directory."""
    parts = workload_entries(text)
    return ",".join(str(Path(p).expanduser().resolve()) if is_file_entry(p) else p for p in parts)


def from_environment(given: str | None = None) -> Described:
    """The server's start (app or CLI): `given` (--workloads) or $RUNTIME_LAB_WORKLOADS, its
    paths made absolute, each file described in its child; the environment the workers
    inherit then names only the files that were read."""
    text = given if given is not None else os.environ.get(WORKLOADS_ENV, "")
    found = describe(absolute(text) if text.strip() else "")
    if found.kept:
        os.environ[WORKLOADS_ENV] = ",".join(found.kept)
    else:
        os.environ.pop(WORKLOADS_ENV, None)
    return found


def describe(text: str | None, timeout_s: float = IMPORT_S) -> Described:
    """Read every entry in a child of its own and register what it declares (torch-free); a
    workload name declared twice keeps its first file, as the workers' loader does."""
    registry.clear_user()
    found = Described(entries=str(text or ""))
    entries = workload_entries(found.entries)
    with ThreadPoolExecutor(max_workers=READERS) as pool:
        answers = list(pool.map(lambda entry: _read(entry, timeout_s), entries))
    owners: dict[str, str] = {}
    for entry, (works, problems) in zip(entries, answers, strict=True):
        found.problems.extend(problems)
        for item in works:
            name = _register(entry, item, owners, found.problems)
            if name:
                found.names.append(name)
        if entry in owners.values():
            found.kept.append(entry)
    return found


def _read(entry: str, timeout_s: float) -> tuple[list[Any], list[str]]:
    """One entry's workloads (plain) and problems, from its child; a child that did not answer
    (it exited, crashed or ran past its time) is one problem naming the entry."""
    if problem := entry_problem(entry):
        return [], [problem]
    drop = (WORKLOADS_ENV,)  # the child reads its one entry, not the whole list
    doc, why = child.run_module(__name__, {"entry": entry}, timeout_s, drop=drop, cwd=None)
    if doc is None or "error" in doc:
        if why and why.startswith("did not finish"):
            why = f"reading it took over {timeout_s:g} s (does it loop or wait at import?)"
        elif why is None:
            why = f"reading it failed: {doc['error']}"
        else:
            why = f"importing it ended its process ({why})"
        return [], [f"{entry}: {why}"]
    return list(doc.get("workloads") or []), [str(p) for p in doc.get("problems") or []]


def _register(entry: str, item: Any, owners: dict[str, str], problems: list[str]) -> str | None:
    try:
        info = from_plain(item.get("info"))
    except (BadDeclaration, ValueError, AttributeError) as exc:
        problems.append(f"{entry}: a workload it declares could not be read: {exc}")
        return None
    if info.name in owners:
        problems.append(f"{entry}: {info.name!r} is declared in {owners[info.name]} too")
        return None
    try:
        registry.add_user_info(info, item.get("code") or {})
    except ValueError as exc:
        problems.append(f"{entry}: {exc}")
        return None
    owners[info.name] = entry
    return info.name


def main(args: dict[str, Any]) -> dict[str, Any]:
    """The child: import the one entry (its prints go to stderr, not into the JSON), then
    size each workload on meta tensors; one that can't be sized or is too big is a problem."""
    from runtime_lab.workloads import user

    stdout, sys.stdout = sys.stdout, sys.stderr
    try:
        loaded = user.load(str(args.get("entry") or ""))
    finally:
        sys.stdout = stdout
    if loaded.names:  # torch, to size them: only a file that declared something pays for it
        from runtime_lab.lab import workload_check
    works = []
    for name in loaded.names:
        try:
            workload_check.size_check(name)
        except workload_check.WorkloadRejected as exc:
            loaded.problems.append(f"{args['entry']}: {exc}")
            continue
        code = {k: v for k, v in registry.CODE[name].items() if k in ("file", "sha256")}
        works.append({"info": to_plain(registry.WORKLOADS[name]), "code": code})
    return {"workloads": works, "problems": loaded.problems}


if __name__ == "__main__":
    child.serve(main)
