"""A bundle run's plain values checked for its readers: times, numbers, text and sizes."""

# What a reader does with a value decides the rule: a time is formatted as a date (the History
# table, `history`), so it is finite and in range; a number is drawn or compared, so it is
# finite and exact in JSON (±2**53); text is sent to the browser and the terminal, so it is
# valid UTF-8 without control characters; and sizes are bounded so a report builds in bounded
# time (an allocator trace of 400,000 points took 82 s to draw, on every rerun).

from __future__ import annotations

import datetime
import json
import math
import re
import time
from typing import Any

EARLIEST = datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc).timestamp()
LATER_S = 86_400.0  # a clock a day ahead of this one is still believed
TIMES = ("created_at", "started_at", "finished_at")
MAX_EXACT = 2**53  # past it JSON readers (the browser, Vega) round whole numbers
MAX_LINE = 10_000  # characters of a one-line text: a label, a host name, an option's value
MAX_TEXT = 1_000_000  # of a long text: an error, generated code, a compile log
MAX_ITEMS = 20_000  # per list: twice the most samples a run takes (repeat ≤ 10,000)
MAX_VALUES = 1_000_000  # per run: about 8 timed modes × 2 clocks × 10,000 samples, with room
# text that is shown on one line, and text that may run over several (newline and tab kept)
_LINE_BAD = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_TEXT_BAD = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
LONG_TEXTS = ("error", "result")  # fields whose strings may hold several lines
LONG_PATHS = ("worker.workload_code.source",)  # and these strings: a user's workload file
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_.:-]{1,40}")


class Refused(ValueError):
    """A value no reader may be given; the one-line message names its field (bundle_check
    says it as a BundleError)."""


def latest() -> float:
    return time.time() + LATER_S


def day(stamp: float) -> str:
    return datetime.datetime.fromtimestamp(stamp, datetime.timezone.utc).strftime("%Y-%m-%d")


def check_times(where: str, run: dict[str, Any]) -> None:
    """created_at, started_at and finished_at: Unix seconds between 2020-01-01 and a day from
    now (which refuses milliseconds, year 3000, 1e300, Infinity, NaN), started before finished."""
    high = latest()
    for name in TIMES:
        value = run.get(name)
        if value is None:
            continue  # whether it may be null is the field types' rule
        if not (math.isfinite(value) and EARLIEST <= value <= high):
            raise Refused(
                f"{where}{name}: {number(value)} is not a time between {day(EARLIEST)} and "
                f"{day(high)} (Unix time in seconds)"
            )
    started, finished = run.get("started_at"), run.get("finished_at")
    if started is not None and finished is not None and started > finished:
        raise Refused(
            f"{where}started_at {number(started)} is after finished_at {number(finished)}; "
            "a run starts before it finishes"
        )


def check_values(where: str, run: dict[str, Any], fields: tuple[str, ...]) -> None:
    """Every number, text, key and list in the run's `fields`, and how many values they hold:
    the first problem as one line naming the field (e.g. `env.gpus[0].name`)."""
    count = 0
    for name in fields:
        long = name in LONG_TEXTS
        stack: list[tuple[str, Any]] = [(name, run.get(name))]
        while stack:  # iterative: the depth is bounded already, the width is not
            path, value = stack.pop()
            count += 1
            if count > MAX_VALUES:
                raise Refused(
                    f"{where}holds more than {MAX_VALUES:,} values; a run holds at most "
                    f"{MAX_VALUES:,} (this Runtime Lab's runs hold far fewer)"
                )
            if isinstance(value, dict):
                for key, item in value.items():
                    check_text(where, f"{path} key {shown(key)}", key, long=False)
                    stack.append((step(path, key), item))
            elif isinstance(value, list):
                if len(value) > MAX_ITEMS:
                    raise Refused(
                        f"{where}{path}: a list of {len(value):,} items; a list holds at most "
                        f"{MAX_ITEMS:,}"
                    )
                stack.extend((f"{path}[{i}]", item) for i, item in enumerate(value))
            elif isinstance(value, str):
                check_text(where, path, value, long=long or path in LONG_PATHS)
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                check_number(where, path, value)


def step(path: str, key: str) -> str:
    """A field's path one key deeper: `env.gpus`, or `env['odd key']`."""
    return f"{path}.{key}" if _PLAIN_KEY.fullmatch(key) else f"{path}[{shown(key)}]"


def check_number(where: str, path: str, value: float) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise Refused(f"{where}{path}: {number(value)} is not a finite number")
    if isinstance(value, int) and abs(value) > MAX_EXACT:
        raise Refused(
            f"{where}{path}: {shown(value)} is beyond ±2**53 ({MAX_EXACT:,}); whole numbers "
            "past that are not exact in JSON"
        )


def check_text(where: str, path: str, text: str, long: bool) -> None:
    """Valid UTF-8 (no lone surrogate from a \\ud800 escape), no control characters but newline
    and tab in a long text, and not longer than its limit."""
    limit = MAX_TEXT if long else MAX_LINE
    if len(text) > limit:
        raise Refused(f"{where}{path}: {len(text):,} characters; at most {limit:,}")
    if found := _SURROGATE.search(text):
        raise Refused(
            f"{where}{path}: holds a lone surrogate (U+{ord(found.group()):04X} at character "
            f"{found.start() + 1}); text must be valid UTF-8"
        )
    if found := (_TEXT_BAD if long else _LINE_BAD).search(text):
        allowed = "but newline and tab" if long else "(it is shown on one line)"
        raise Refused(
            f"{where}{path}: holds control character U+{ord(found.group()):04X} at character "
            f"{found.start() + 1}; text holds no control characters {allowed}"
        )


def number(value: Any) -> str:
    """A number as JSON wrote it (1e+300, Infinity, NaN), cut when long."""
    try:
        return shown(json.dumps(value), quote=False)
    except (TypeError, ValueError):
        return shown(value)


def shown(value: Any, quote: bool = True) -> str:
    """A value echoed in a message: one line, cut at 40 characters; control characters and
    surrogates escaped (repr does both)."""
    text = repr(value) if quote else str(value)
    if isinstance(value, int) and not isinstance(value, bool) and len(text) > 40:
        return f"{text[:20]}… ({len(text)} digits)"
    return text if len(text) <= 40 else text[:40] + "…"


def kind(value: Any) -> str:
    """A JSON value's type in words, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"
