"""The run record: one job's spec, environment, result and timing, as every layer holds it."""

from __future__ import annotations

import json
import math
import time
import types
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

# Besides history, which stores every field, a field appears in the run's JSON document (the
# CLI's --json, the pages' "Run JSON" download) and in bundles, or in one of them.
DOCUMENT, BUNDLE = "document", "bundle"
_BOTH = frozenset({DOCUMENT, BUNDLE})


def _field(default: Any = None, *, shown: frozenset[str] = _BOTH, stored_null: bool = True):
    """A Run field: where it appears; whether a stored run (history's row, a bundle's run) may
    hold None there, stricter than memory (a job not yet run has no env or device, but every
    stored run has both). No default: `...`."""
    meta = {"shown": shown, "stored_null": stored_null}
    return field(metadata=meta) if default is ... else field(default=default, metadata=meta)


@dataclass(frozen=True, kw_only=True)
class Run(Mapping[str, Any]):
    """One run, from a job's snapshot (Job.as_run) or from history or a bundle. Its field names
    are history's columns (JSON ones with `_json`), the run document's keys and a bundle run's
    fields, unchanged since v0.1 so old histories and bundles read as they are. Times are Unix
    time in seconds (time.time()). `result` is the experiment's result as plain JSON:
    registry.load(run) rebuilds the typed one, once per use.

    Also a read-only mapping of its fields (`run["spec"]`, `run.get("id")`), for readers written
    against the dict it replaced (experiment reports, tests); new code reads attributes."""

    id: int | None = _field(None, shown=frozenset({DOCUMENT}))  # history's row; None until stored
    status: str = _field("")  # done | failed | cancelled; a job's also queued | running | refused
    spec: dict[str, Any] = _field(...)  # RunSpec.to_dict()
    env: dict[str, Any] | None = _field(None, stored_null=False)  # the worker's fingerprint
    device: str | None = _field(None, stored_null=False)  # where it ran: cpu, cuda:0, …
    result: dict[str, Any] | None = _field(None)
    error: str | None = _field(None)
    created_at: float | None = _field(None, stored_null=False)  # submitted; never None stored
    started_at: float | None = _field(None)  # the worker's start where it said, else dispatched
    finished_at: float | None = _field(None)
    process_probe: dict[str, Any] | None = _field(None)  # job-start probe vs the worker's own
    worker: dict[str, Any] | None = _field(None)  # which worker ran it, after what, alongside whom
    job_id: str = _field("", shown=frozenset({BUNDLE}))
    experiment: str = _field("", shown=frozenset({BUNDLE}))
    label: str = _field("", shown=frozenset({BUNDLE}))
    # where an imported run came from (store/bundle.py); None for a run made here
    origin: dict[str, Any] | None = _field(None, shown=frozenset())

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Run:
        """Plain data as a Run: a history row, a bundle's run, a run document. Keys it lacks
        take their defaults (a row stored before a field existed); other keys are ignored
        (a document's `summary`, a bundle run's `artefacts`)."""
        given = {name: data[name] for name in FIELDS if name in data}
        spec = given.setdefault("spec", {})
        if not given.get("experiment") and isinstance(spec, Mapping):
            given["experiment"] = spec.get("experiment") or ""
        return cls(**given)

    @classmethod
    def of(cls, value: Run | Mapping[str, Any]) -> Run:
        """A Run as it is, or plain data read as one (from_dict)."""
        return value if isinstance(value, Run) else cls.from_dict(value)

    def to_dict(self, shown: str | None = None) -> dict[str, Any]:
        """Every field by name, or those of one view (DOCUMENT, BUNDLE), in field order."""
        names = FIELDS if shown is None else VIEWS[shown]
        return {name: getattr(self, name) for name in names}

    def document(self) -> dict[str, Any]:
        """The run's JSON document: what the CLI's --json writes and the pages download."""
        return self.to_dict(DOCUMENT)

    # ---- read-only mapping of the fields -------------------------------------------
    def __getitem__(self, name: str) -> Any:
        if name not in _NAMES:
            raise KeyError(name)
        return getattr(self, name)

    def __iter__(self) -> Iterator[str]:
        return iter(FIELDS)

    def __len__(self) -> int:
        return len(FIELDS)


FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Run))
_NAMES = frozenset(FIELDS)
VIEWS: dict[str, tuple[str, ...]] = {
    view: tuple(f.name for f in fields(Run) if view in f.metadata["shown"])
    for view in (DOCUMENT, BUNDLE)
}


def plain_types(hint: Any) -> tuple[tuple[type, ...], bool]:
    """(types a plain value of this annotation may have, whether it may be None): a float
    also takes an int (JSON writes 1.0 as 1)."""
    parts = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    allowed: list[type] = []
    for part in parts:
        base = typing.get_origin(part) or part
        if base is float:
            allowed += [int, float]
        elif base is not type(None):
            allowed.append(base)
    return tuple(allowed), type(None) in parts


TIMES = ("created_at", "started_at", "finished_at")  # Unix seconds; created_at never None


def time_problem(run: Run) -> str | None:
    """Which of a run's times cannot be stored or shown, as one line naming the field and its
    value as JSON writes it (NaN, Infinity, 1e+300); None when each is a finite number (or
    None, created_at aside). History refuses such a run with this line rather than as a
    database fault (SQLite stores NaN as NULL, so a NaN created_at failed NOT NULL and read
    as "history database … is unreadable")."""
    for name in TIMES:
        stamp = getattr(run, name)
        if stamp is None and name != "created_at":
            continue
        if when(stamp).startswith("not a time"):
            return f"{name} is {_as_json(stamp)}, not a time (Unix seconds, a finite number)"
    return None


def when(stamp: Any) -> str:
    """A stored time as local `YYYY-MM-DD HH:MM:SS`, or `not a time (VALUE)` for a value no
    clock gives (NaN, Infinity, 1e300, text, None): a reader of one bad run never raises."""
    if isinstance(stamp, (int, float)) and not isinstance(stamp, bool) and math.isfinite(stamp):
        try:
            return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stamp))
        except (OverflowError, OSError, ValueError):  # past what the C library takes
            pass
    return f"not a time ({_as_json(stamp)})"


def _as_json(value: Any) -> str:
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else f"{text[:40]}… ({len(text):,} characters)"


def stored_rules(record: type = Run) -> tuple[tuple[str, tuple[type, ...], bool], ...]:
    """(field, types, may be null) of each field of the record, in field order, as a stored run
    holds it: what history's columns and a bundle's checks are derived from. `record` is Run
    or a dataclass extending it; a field declared without _field may be null as its type says."""
    hints = typing.get_type_hints(record)
    return tuple(
        (f.name, types_, null and f.metadata.get("stored_null", True))
        for f in fields(record)
        for types_, null in [plain_types(hints[f.name])]
    )


def json_fields() -> tuple[str, ...]:
    """Fields whose value is a JSON object (history stores them as text in `<name>_json`)."""
    return tuple(name for name, types_, _ in stored_rules() if dict in types_)


def bundle_rules() -> tuple[tuple[str, tuple[type, ...], bool], ...]:
    """(field, types, may be null) of each field a bundle's run carries."""
    return tuple(rule for rule in stored_rules() if rule[0] in VIEWS[BUNDLE])
