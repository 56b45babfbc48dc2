"""The CLI's path and number arguments, checked before anything runs: one line each, no torch."""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from pathlib import Path

from runtime_lab import config, envvars
from runtime_lab.quote import NUMBER as _DECIMAL

LIMIT_RANGE = (1, 10000)
RUN_ID_RANGE = (1, 2**63 - 1)  # SQLite's INTEGER PRIMARY KEY
BUNDLE_SUFFIX = ".json.gz"
TIMEOUT_RANGE = envvars.TIMEOUT_RANGE  # seconds, as $RUNTIME_LAB_JOB_TIMEOUT_S takes
# ASCII only: int()/float() also take other scripts' digits, "1_000", "nan" and "inf"
_INTEGER = re.compile(r"[+-]?[0-9]+")
SHOWN_CHARS = 40


class ArgError(ValueError):
    """An unusable argument, as the one line the CLI prints: argument, what was given, why."""


def check(args: argparse.Namespace) -> None:
    """Raise ArgError for the first unusable argument, in command-line order, then for a bad
    RUNTIME_LAB_* value; parses the number arguments in place (argparse keeps them as text so
    every message has one style)."""
    if args.ray_address:  # "" is this host only, as the variable's empty value
        ray_address(args.ray_address)
    if args.command in ("run", "history"):  # `env` never opens the data directory
        data_dir(args.data_dir)
    if args.command == "history":
        args.limit = integer("--limit", args.limit, *LIMIT_RANGE)
    if args.command == "run":
        if args.timeout is not None:
            args.timeout = seconds("--timeout", args.timeout, *TIMEOUT_RANGE)
        if args.json is not None:
            output_file("--json", args.json)
    if args.command in ("export", "import"):
        bundle_args(args)
    environment(args)


def environment(args: argparse.Namespace) -> None:
    """Every RUNTIME_LAB_* value (envvars.py), on every command, but those a flag makes moot:
    the data dir is data_dir()'s to check, --ray-address and run's --timeout win."""
    flags = {envvars.RAY_ADDRESS_ENV: args.ray_address, envvars.JOB_TIMEOUT_ENV: _timeout(args)}
    flags[envvars.WORKLOADS_ENV] = args.workloads  # each entry: a warning, when it is read
    moot = (config.DATA_DIR_ENV, *(name for name, flag in flags.items() if flag is not None))
    if problem := envvars.first_problem(skip=moot):
        raise ArgError(problem)


def _timeout(args: argparse.Namespace) -> float | None:
    return getattr(args, "timeout", None) if args.command == "run" else None


def bundle_args(args: argparse.Namespace) -> None:
    """`export ID… --out FILE.json.gz` and `import FILE`: the data dir, then as typed."""
    data_dir(args.data_dir)
    if args.command == "import":
        input_file("FILE", args.file)
        return
    args.ids = [integer("ID", given, *RUN_ID_RANGE) for given in args.ids]
    if not args.out.endswith(BUNDLE_SUFFIX):
        raise ArgError(f"--out {args.out}: must end in {BUNDLE_SUFFIX} (a bundle is gzip JSON)")
    output_file("--out", args.out)


def data_dir(given: str | None) -> None:
    """--data-dir when given, else where config.data_dir() would look ($RUNTIME_LAB_DATA_DIR)."""
    if given is None:
        problem = config.data_dir_problem()
        if problem:
            raise ArgError(problem)
        return
    if not given.strip():
        raise ArgError("--data-dir is empty; expected a directory path")
    reason = config.dir_problem(given)
    if reason:
        raise ArgError(f"--data-dir {given}: {reason}")


def ray_address(given: str) -> None:
    """--ray-address takes what $RUNTIME_LAB_RAY_ADDRESS takes (envvars.py's rule)."""
    var = envvars.VARS[envvars.RAY_ADDRESS_ENV]
    try:
        var.parse(given)
    except ValueError:
        raise ArgError(f"--ray-address {_shown(given)}: expected {var.allowed()}") from None


def output_file(flag: str, given: str) -> None:
    """A file the run will write at its end ('-' is stdout): fail now, not after the run."""
    if given == "-":
        return
    if not given.strip():
        raise ArgError(f"{flag} is empty; expected a file path or '-' for stdout")
    path = Path(given).expanduser().absolute()
    if os.path.isdir(path):
        reason = "is a directory, not a file"
    elif os.path.exists(path):
        reason = None if os.access(path, os.W_OK) else "file is not writable"
    else:
        reason = config.creation_problem(path)
    if reason:
        raise ArgError(f"{flag} {given}: {reason}")


def input_file(flag: str, given: str) -> None:
    """A file the command reads: it must be there, a regular file, and readable."""
    if not given.strip():
        raise ArgError(f"{flag} is empty; expected a file path")
    path = Path(given).expanduser().absolute()
    if os.path.isdir(path):
        reason = "is a directory, not a file"
    elif os.path.isfile(path):
        reason = None if os.access(path, os.R_OK) else "file is not readable"
    elif os.path.lexists(path):
        reason = "is a broken symbolic link" if path.is_symlink() else "is not a regular file"
    else:
        reason = "does not exist"
    if reason:
        raise ArgError(f"{flag} {given}: {reason}")


def integer(flag: str, given: str | int, low: int, high: int) -> int:
    text = str(given).strip()
    # the length cap first: int() refuses over 4300 digits with a ValueError of its own
    if _INTEGER.fullmatch(text) and len(text) <= 20 and low <= int(text) <= high:
        return int(text)
    raise ArgError(f"{flag} must be an integer from {low} to {high}, got {_shown(text)}")


def seconds(flag: str, given: str | float, low: float, high: float) -> float:
    text = str(given).strip()
    if _DECIMAL.fullmatch(text):
        value = float(text)
        if math.isfinite(value) and low <= value <= high:
            return value
    raise ArgError(
        f"{flag} must be a number of seconds from {low:g} to {high:g}, got {_shown(text)}"
    )


def _shown(text: str) -> str:
    """The given value as typed when it is a number, else quoted and cut (it is echoed back)."""
    if _DECIMAL.fullmatch(text) and len(text) <= SHOWN_CHARS:
        return text
    cut = text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…"
    return repr(cut)


def write_json(path: str, text: str) -> bool:
    """Write a checked --json PATH ('-': stdout). Failing here is the disk (full, removed), so
    one line on stderr and False, never a traceback."""
    if path == "-":
        print(text, end="")
        return True
    try:
        with open(os.path.expanduser(path), "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        print(f"runtime_lab: error: --json {path}: {exc.strerror or exc}", file=sys.stderr)
        return False
    return True
