"""Every RUNTIME_LAB_* environment variable in one table (type, allowed range, meaning) and its check."""

# Why one table: each variable used to be parsed where it was read, each its own way, and a bad
# value was mostly ignored (`RUNTIME_LAB_CPU_WORKERS=lots` ran one worker), unbounded (`=99`
# started 99 torch processes) or fatal far away (`RUNTIME_LAB_TORCH_THREADS=²` passed
# str.isdigit, then int() killed every worker at start with a message naming nothing). Here each
# value is checked once, before any worker starts: the CLI exits 2 and the app stops with one
# line naming the variable, its value and what is allowed. Readers (the pool, the worker) take
# value(), which falls back to the default on a bad value, so a worker never dies of one.
# Standard library only (and config, itself standard library): scripts/setup.sh runs it too.

from __future__ import annotations

import math
import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from runtime_lab.config import DATA_DIR_ENV, dir_problem
from runtime_lab.quote import given

JOB_TIMEOUT_ENV = "RUNTIME_LAB_JOB_TIMEOUT_S"
CPU_WORKERS_ENV = "RUNTIME_LAB_CPU_WORKERS"
TORCH_THREADS_ENV = "RUNTIME_LAB_TORCH_THREADS"
THREADS_SOURCE_ENV = "RUNTIME_LAB_TORCH_THREADS_SOURCE"
RAY_ADDRESS_ENV = "RUNTIME_LAB_RAY_ADDRESS"
AUTHKEY_ENV = "RUNTIME_LAB_AUTHKEY"
SYSTEM_TORCH_ENV = "RUNTIME_LAB_SYSTEM_TORCH"
TORCH_VERSION_ENV = "RUNTIME_LAB_TORCH_VERSION"
WORKLOADS_ENV = "RUNTIME_LAB_WORKLOADS"
PREWARM_ENV = "RUNTIME_LAB_PREWARM"
ZYGOTE_ENV = "RUNTIME_LAB_ZYGOTE"
ASKED_AT_ENV = "RUNTIME_LAB_WORKER_ASKED_AT"
ZYGOTE_KEY_ENV = "RUNTIME_LAB_ZYGOTE_KEY"
ZYGOTE_AT_ENV = "RUNTIME_LAB_ZYGOTE_AT"

DEFAULT_JOB_TIMEOUT_S = 600.0
TIMEOUT_RANGE = (1.0, 86400.0)  # seconds (said as "1 to 86400" below): a day bounds a typo
SOURCE_CHARS = 200  # the pool's reason for a thread count, recorded with every run
# ASCII only: int() and float() also take other scripts' digits, "1_000", " 7 ", "nan", "inf"
_INTEGER = re.compile(r"[+-]?[0-9]{1,20}")
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_HOST = r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)"
_RAY = re.compile(rf"auto|local|ray://{_HOST}(:[0-9]{{1,5}})?|{_HOST}:[0-9]{{1,5}}")
_VERSION = re.compile(
    r"[0-9]{1,4}(\.[0-9]{1,4}){0,3}((a|b|rc|\.post|\.dev)[0-9]{1,4})?(\+[a-z0-9.]{1,32})?"
)

SERVER, WORKER, SETUP = "server", "worker", "setup"  # who reads it: the app and CLI, or setup.sh


def cores() -> int:
    """CPUs this process may run on (its affinity mask, where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # no affinity API on macOS
        return os.cpu_count() or 1


@dataclass(frozen=True)
class Var:
    """One variable: its type and allowed values (for messages and the docs), what it means,
    its default, who reads it, and `parse`, which raises ValueError for a value not allowed."""

    name: str
    kind: str
    allowed: Callable[[], str]
    meaning: str
    default: Any
    scope: str
    parse: Callable[[str], Any] | None  # None: set by the server for its workers, not checked


def _integer(low: int, high: Callable[[], int]) -> Callable[[str], int]:
    def parse(raw: str) -> int:
        text = raw.strip()
        if _INTEGER.fullmatch(text) and low <= int(text) <= high():
            return int(text)
        raise ValueError

    return parse


def _seconds(raw: str) -> float:
    text = raw.strip()
    value = float(text) if _DECIMAL.fullmatch(text) else math.nan
    if math.isfinite(value) and TIMEOUT_RANGE[0] <= value <= TIMEOUT_RANGE[1]:
        return value
    raise ValueError


def _matching(pattern: re.Pattern[str]) -> Callable[[str], str]:
    def parse(raw: str) -> str:
        if pattern.fullmatch(raw.strip()):
            return raw.strip()
        raise ValueError

    return parse


def _ray_address(raw: str) -> str:
    text = _matching(_RAY)(raw)
    port = text.rpartition(":")[2] if text not in ("auto", "local") else ""
    if port.isdigit() and not 1 <= int(port) <= 65535 and not text.endswith("]"):
        raise ValueError
    return text


def _directory(raw: str) -> str:
    reason = dir_problem(raw) if raw.strip() else "blank"
    if reason:
        raise ValueError(reason)
    return raw


def _flag(raw: str) -> bool:
    if raw.strip() in ("0", "1"):
        return raw.strip() == "1"
    raise ValueError


def _line(raw: str) -> str:
    if len(raw) <= SOURCE_CHARS and raw.isprintable():
        return raw
    raise ValueError


_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def workload_entries(text: str | None) -> list[str]:
    """$RUNTIME_LAB_WORKLOADS (or --workloads) as typed: PATH[,PATH…], blanks dropped."""
    return [part.strip() for part in str(text or "").split(",") if part.strip()]


def is_file_entry(entry: str) -> bool:
    """A file path (….py, or with a / or a leading .), not a package.module name."""
    return entry.endswith(".py") or os.sep in entry or entry.startswith(".")


def entry_problem(entry: str) -> str | None:
    """Why one entry of $RUNTIME_LAB_WORKLOADS can't be read (a .py file that is not there, a
    name that is no package.module), else None. Said as a warning by whoever reads the list:
    one bad entry never stops the app or the CLI (workloads/describe.py)."""
    if is_file_entry(entry):
        if not os.path.isfile(os.path.expanduser(entry)):
            return f"{entry[:300]}: no such file"  # whole up to 300: paths are long
        return None
    if not _MODULE.fullmatch(entry):
        return f"{given(entry)} is neither a .py file nor a package.module name"
    return None


def _workload_files(raw: str) -> str:
    """PATH[,PATH…] as typed: any value is taken here; each entry is read, or named in a
    warning and dropped, when the server starts (entry_problem, workloads/describe.py)."""
    return ",".join(workload_entries(raw))


_CPUS = "(the CPUs this process may use)"
TABLE: tuple[Var, ...] = (
    Var(
        DATA_DIR_ENV, "path",
        lambda: "a writable directory, or a missing one whose parent is a writable directory",
        "the data directory (default ./.runtime_lab; --data-dir wins)", None, SERVER, _directory,
    ),
    Var(
        JOB_TIMEOUT_ENV, "seconds", lambda: "a number from 1 to 86400",
        "how long one job may run (default 600)", DEFAULT_JOB_TIMEOUT_S, SERVER, _seconds,
    ),
    Var(
        CPU_WORKERS_ENV, "integer", lambda: f"an integer from 1 to {cores()} {_CPUS}",
        "how many CPU workers the server runs (default 1)", 1, SERVER, _integer(1, lambda: cores()),
    ),
    Var(
        TORCH_THREADS_ENV, "integer", lambda: f"an integer from 1 to {cores()} {_CPUS}",
        "torch's intra-op threads in a worker (default: physical cores - 1, shared out when "
        "several workers run)", None, WORKER, _integer(1, lambda: cores()),
    ),
    Var(
        RAY_ADDRESS_ENV, "address", lambda: "auto, local, ray://HOST[:PORT] or HOST:PORT",
        "the Ray cluster GPU jobs run on (default: this host's workers; --ray-address wins)",
        "", SERVER, _ray_address,
    ),
    Var(
        THREADS_SOURCE_ENV, "text",
        lambda: f"one printable line of at most {SOURCE_CHARS} characters",
        "why a worker has its thread count (the server sets it)", None, WORKER, _line,
    ),
    Var(
        AUTHKEY_ENV, "key", lambda: "set by the server (a random key per worker)",
        "the worker pipe's key (a value of your own is replaced)", None, WORKER, None,
    ),
    Var(
        ZYGOTE_KEY_ENV, "key", lambda: "set by the server (a random key)",
        "the zygote pipe's key (a value of your own is replaced)", None, WORKER, None,
    ),
    Var(
        ZYGOTE_AT_ENV, "address", lambda: "set by the test session (KEY@HOST:PORT)",
        "a zygote another process serves, which forks this server's workers (tests only)", None,
        SERVER, None,
    ),
    Var(
        ASKED_AT_ENV, "time", lambda: "set by the server (when it asked for the worker)",
        "the start of a worker's start-up figures (a value of your own is replaced)", None,
        WORKER, None,
    ),
    Var(
        SYSTEM_TORCH_ENV, "flag", lambda: "0 or 1",
        "whether setup.sh lets the venv see $PYTHON's packages (its CUDA torch)", False, SETUP,
        _flag,
    ),
    Var(
        TORCH_VERSION_ENV, "version", lambda: "a release number such as 2.13.0",
        "the torch setup.sh installs when the venv has none (default 2.13.0)", "2.13.0", SETUP,
        _matching(_VERSION),
    ),
    Var(
        PREWARM_ENV, "flag", lambda: "0 or 1",
        "whether a GPU worker warms its compiler with one tiny compile before its hello (default 1)",
        True, WORKER, _flag,
    ),
    Var(
        ZYGOTE_ENV, "flag", lambda: "0 or 1",
        "whether the server forks its workers from one process that imported torch (default 1)",
        True, SERVER, _flag,
    ),
    Var(
        WORKLOADS_ENV, "paths", lambda: ".py files or package.module names, joined by commas",
        "the user's workload files, loaded by the workers only (--workloads wins; one that "
        "can't be read is a warning)", "", SERVER,
        _workload_files,
    ),
)  # fmt: skip
VARS: dict[str, Var] = {var.name: var for var in TABLE}


def problem(name: str, environ: Mapping[str, str] | None = None) -> str | None:
    """One line on why the variable's value is not allowed (the value as given, cut; what is
    allowed; what it is for); None when unset or allowed. Empty counts as unset (`NAME= cmd`)."""
    var, raw = VARS[name], (os.environ if environ is None else environ).get(name)
    if var.parse is None or raw is None or raw == "":
        return None
    try:
        var.parse(raw)
    except (ValueError, OverflowError) as exc:
        why = f" ({exc})" if str(exc) else ""
        return f"${name}={given(raw)} is not allowed{why}: {var.allowed()}; it sets {var.meaning}"
    return None


def first_problem(
    scope: str = SERVER, environ: Mapping[str, str] | None = None, skip: tuple[str, ...] = ()
) -> str | None:
    """The first variable of `scope` (SERVER also checks WORKER's: the server starts them),
    but those in `skip` (a flag given instead), whose value is not allowed; None when none."""
    scopes = {SERVER: (SERVER, WORKER), WORKER: (WORKER,), SETUP: (SETUP,)}[scope]
    chosen = (var for var in TABLE if var.scope in scopes and var.name not in skip)
    return next((line for var in chosen if (line := problem(var.name, environ))), None)


def value(name: str, environ: Mapping[str, str] | None = None) -> Any:
    """The variable's parsed value, or its default when unset or not allowed (the reader's
    side: the app and the CLI have already refused a bad value, so this is defence in depth)."""
    var, raw = VARS[name], (os.environ if environ is None else environ).get(name)
    if var.parse is None or not raw:
        return var.default if var.parse is not None else raw
    try:
        return var.parse(raw)
    except (ValueError, OverflowError):
        return var.default


def main(argv: list[str]) -> int:
    """`python -m runtime_lab.envvars setup`: scripts/setup.sh's check of its own variables."""
    scope = argv[0] if argv else SERVER
    line = first_problem(scope)
    if line:
        print(f"runtime_lab: error: {line}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
