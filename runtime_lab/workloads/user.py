"""A user's workload files, loaded in a worker (never the server): import, check, register."""

# Importing a file runs it, so only two kinds of process ever do: the workers, and the short
# describe child that tells the server what the files declare (workloads/describe.py). Every
# way a file can be wrong ends as one line naming the file; the other files still load.

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from runtime_lab.envvars import WORKLOADS_ENV, is_file_entry, workload_entries
from runtime_lab.workloads import registry
from runtime_lab.workloads.declare import Workload
from runtime_lab.workloads.plain import BadDeclaration, check

MAX_SOURCE = 64_000  # characters of a file's source kept with each run of its workloads
IMPORT_S = 30.0  # a file's import (torch's included) on 2 busy cores takes seconds, not this


class ImportStopped(Exception):
    """A file's import tried to end the process or ran past IMPORT_S."""


@dataclass
class Loaded:
    """What loading the named files gave: the workloads registered and one line per problem."""

    names: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _import(entry: str) -> tuple[Any, Path]:
    """The module of a file path or a package.module name, and its file."""
    if is_file_entry(entry):
        path = Path(entry).expanduser().resolve()
        if not path.is_file():
            raise FileNotFoundError(f"{entry}: no such file")
        digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
        name = f"runtime_lab_user_{path.stem}_{digest}"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses and pickling look modules up by name
        try:
            with _guarded():
                spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(name, None)
            raise
        return module, path
    module = importlib.import_module(entry)
    return module, Path(getattr(module, "__file__", "") or entry)


@contextlib.contextmanager
def _guarded() -> Iterator[None]:
    """While a file is imported in this process's main thread (a worker's start; the describe
    child's has its parent's time limit too): os._exit raises instead of ending the process,
    and an import past IMPORT_S is stopped, so one file can't take a worker down."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    real_exit = os._exit

    def refuse_exit(status: int) -> None:
        if threading.current_thread() is not threading.main_thread():
            return real_exit(status)  # another thread's (a worker's parent watch) still exits
        raise ImportStopped(f"it called os._exit({status})")

    def stop(signum: int, frame: Any) -> None:
        raise ImportStopped(f"it ran for more than {IMPORT_S:g} s")

    previous = signal.signal(signal.SIGALRM, stop)
    os._exit, began = refuse_exit, time.monotonic()
    delay, interval = signal.setitimer(signal.ITIMER_REAL, IMPORT_S)
    try:
        yield
    finally:
        # a timer set before (pytest-timeout's, say) goes on with what was left of it
        left = max(delay - (time.monotonic() - began), 0.001) if delay else 0
        signal.setitimer(signal.ITIMER_REAL, left, interval)
        signal.signal(signal.SIGALRM, previous)
        os._exit = real_exit


def _why(entry: str, exc: BaseException) -> str:
    if isinstance(exc, FileNotFoundError) and str(exc).startswith(entry):
        return str(exc)
    if isinstance(exc, SyntaxError):
        return f"{entry}: syntax error at line {exc.lineno}: {exc.msg}"
    if isinstance(exc, ModuleNotFoundError) and not is_file_entry(entry):
        return f"{entry}: no such module ({exc}); a file path must end in .py"
    if isinstance(exc, ImportStopped):
        return f"{entry}: importing it was stopped: {exc}"
    if isinstance(exc, SystemExit):
        return f"{entry}: importing it called sys.exit({exc.code!r})"
    return f"{entry}: importing it raised {type(exc).__name__}: {exc}"


def code_of(path: Path) -> dict[str, Any]:
    """Which code ran: the file, its sha256 and its source (cut at MAX_SOURCE characters)."""
    data = path.read_bytes() if path.is_file() else b""
    text = data.decode("utf-8", errors="replace")
    return {
        "file": str(path),
        "sha256": hashlib.sha256(data).hexdigest(),
        "source": text[:MAX_SOURCE],
        # not the file byte for byte (cut, or not UTF-8): its hash can't be checked against it
        "truncated": len(text) > MAX_SOURCE or text.encode() != data,
    }


def declared(entry: str, module: Any) -> list[Workload]:
    """The module's WORKLOADS, each a Workload with a sound declaration and callables."""
    found = getattr(module, "WORKLOADS", None)
    if found is None:
        raise BadDeclaration(f"{entry}: declares no WORKLOADS list (see docs/workloads.md)")
    if not isinstance(found, (list, tuple)):
        raise BadDeclaration(f"{entry}: WORKLOADS must be a list, got {type(found).__name__}")
    works = []
    for index, work in enumerate(found):
        where = f"{entry}: WORKLOADS[{index}]"
        if not isinstance(work, Workload):
            raise BadDeclaration(f"{where} is a {type(work).__name__}, not a Workload")
        try:
            check(work.info)
        except BadDeclaration as exc:
            raise BadDeclaration(f"{where} ({getattr(work.info, 'name', '?')}): {exc}") from None
        for key in ("inputs", "fn"):
            if not callable(getattr(work, key)):
                raise BadDeclaration(f"{where} ({work.info.name}): {key} must be a function")
        if not hasattr(work.fn, "__code__"):
            raise BadDeclaration(
                f"{where} ({work.info.name}): fn must be a plain Python function (each mode "
                "compiles its own copy of its code)"
            )
        for key in ("flops", "reference"):
            value = getattr(work, key)
            if value is not None and not callable(value):
                raise BadDeclaration(f"{where} ({work.info.name}): {key} must be a function")
        works.append(work)
    return works


def load(text: str | None) -> Loaded:
    """Import every entry, register its workloads; a bad file or name is a problem line."""
    loaded, owners = Loaded(), {}
    for entry in workload_entries(text):
        try:
            module, path = _import(entry)
            works = declared(entry, module)
        except BadDeclaration as exc:
            loaded.problems.append(str(exc))
            continue
        except BaseException as exc:  # a user's file may raise anything, sys.exit included
            if isinstance(exc, KeyboardInterrupt):
                raise
            loaded.problems.append(_why(entry, exc))
            continue
        code = code_of(path)
        for work in works:
            name = work.info.name
            if name in registry.NAMES:
                loaded.problems.append(f"{entry}: {name!r} is a built-in workload's name")
            elif name in owners:
                loaded.problems.append(f"{entry}: {name!r} is declared in {owners[name]} too")
            else:
                owners[name] = entry
                info = replace(work.info, origin=f"yours ({path.name})")
                registry.add_user(replace(work, info=info), code)
                loaded.names.append(name)
    return loaded


LOADED_HERE: dict[str, list[str]] = {"names": [], "problems": []}  # this worker's, for its hello


def load_from_env() -> None:
    """A worker's start: the files named in $RUNTIME_LAB_WORKLOADS."""
    loaded = load(os.environ.get(WORKLOADS_ENV))
    LOADED_HERE.update(names=loaded.names, problems=loaded.problems)


def check_job(options, outcome: dict[str, Any]) -> None:
    """A job on a user workload: its code goes into the outcome (the run's record), then it is
    tried small on the CPU before anything else runs (smoke.WorkloadRejected if it fails)."""
    from runtime_lab.lab import workload_check as smoke

    name = dict(options).get("workload")
    if name is None or name in registry.NAMES:
        return
    if name not in registry.WORKLOADS:
        why = "; ".join(LOADED_HERE["problems"]) or "no workload file loaded here declares it"
        raise smoke.WorkloadRejected(f"{name}: this worker has no such workload ({why})")
    outcome["workload_code"] = registry.CODE[name]
    smoke.check(name)
