"""A parsed bundle checked field by field before anything is stored: one line per problem."""

from __future__ import annotations

import json
import re
from typing import Any

from runtime_lab import record, registry
from runtime_lab.record import Run
from runtime_lab.store import conform, values
from runtime_lab.store.values import kind
from runtime_lab.workloads.provenance import code_problem

FORMAT = "runtime-lab-bundle"
VERSION = 1
MAX_RUNS = 1000
MAX_DEPTH = 64  # a bundle nests about 10 deep (run → result → modes → kernels); traces less
TOO_DEEP = f"the bundle's JSON nests deeper than {MAX_DEPTH} levels; at most {MAX_DEPTH}"
STATUSES = ("done", "failed", "cancelled")  # what history records ("refused" never is)
# one plain name per folder level: no "..", no leading "/" or "\", no drive, no hidden files
_PART = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,99}")
MAX_PARTS = 4
PATH_RULE = "a relative path of 1 to 4 plain names (letters, digits, . _ -) ending in .json"


class BundleError(ValueError):
    """A bundle that cannot be exported or imported; the one-line message says why."""


# (field, types allowed, may be null): every run of a version-1 bundle carries all of them, the
# record's bundle fields (runtime_lab/record.py) and the JSON files its result names
RUN_FIELDS: tuple[tuple[str, tuple[type, ...], bool], ...] = (
    *record.bundle_rules(),
    ("artefacts", (dict,), False),
)


def check_depth(value: Any) -> None:
    """Iterative, so a document nested past the limit can't exhaust the stack while checked."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise BundleError(TOO_DEEP)
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)


def check_document(doc: Any) -> list[dict[str, Any]]:
    """The bundle's runs, once its envelope and every run are valid; else BundleError."""
    if not isinstance(doc, dict):
        raise BundleError(
            f"the bundle is JSON but {kind(doc)}, not an object with format {FORMAT!r}"
        )
    if "format" not in doc:
        raise BundleError(f"not a Runtime Lab bundle: no 'format' field; expected {FORMAT!r}")
    if doc["format"] != FORMAT:
        raise BundleError(
            f"not a Runtime Lab bundle: format is {_shown(doc.get('format'))}, expected {FORMAT!r}"
        )
    _check_version(doc.get("version"))
    _typed("", doc, "exported_at", (int, float), False)
    _typed("", doc, "exported_by", (dict,), False)
    for name in ("lab", "hostname"):
        _typed("exported_by: ", doc["exported_by"], name, (str,), False)
        try:  # the host name is stored as the runs' origin and echoed
            values.check_text("", f"exported_by.{name}", doc["exported_by"][name], long=False)
        except values.Refused as exc:
            raise BundleError(str(exc)) from None
    runs = _typed("", doc, "runs", (list,), False)
    if not 1 <= len(runs) <= MAX_RUNS:
        raise BundleError(f"'runs' holds {len(runs)} runs; a bundle holds 1 to {MAX_RUNS}")
    for number, run in enumerate(runs, 1):
        check_run(number, run)
    return runs


def _check_version(version: Any) -> None:
    known = isinstance(version, int) and not isinstance(version, bool)
    if known and version > VERSION:
        raise BundleError(
            f"bundle version {version} is newer than this Runtime Lab reads (version {VERSION}); "
            "upgrade Runtime Lab to import it"
        )
    if not known or version != VERSION:
        raise BundleError(
            f"bundle version {_shown(version)} is not known; this Runtime Lab reads version "
            f"{VERSION}"
        )


# every field of a run but its artefacts (files only downloaded, written back as JSON)
VALUE_FIELDS = tuple(name for name, _, _ in RUN_FIELDS if name != "artefacts")


def check_run(number: int, run: Any) -> None:
    """One run: its fields' types, a known experiment, a result that rebuilds, safe artefacts."""
    where = f"run {number}: "
    if not isinstance(run, dict):
        raise BundleError(f"{where}must be an object, got {kind(run)}")
    for name, types, nullable in RUN_FIELDS:
        _typed(where, run, name, types, nullable)
    experiment = run["experiment"]
    if experiment not in registry.NAMES:
        raise BundleError(
            f"{where}unknown experiment {_shown(experiment)}; known: {', '.join(registry.NAMES)}"
        )
    if run["spec"].get("experiment") != experiment:
        raise BundleError(
            f"{where}spec.experiment is {_shown(run['spec'].get('experiment'))} "
            f"but experiment is {experiment!r}; they must agree"
        )
    _check_spec(where, run["spec"])
    if run["status"] not in STATUSES:
        raise BundleError(
            f"{where}status {_shown(run['status'])} is not one of {', '.join(STATUSES)}"
        )
    if run["status"] == "done" and run["result"] is None:
        raise BundleError(f"{where}status is 'done' but result is null; a done run has a result")
    try:  # what every reader of the run uses: times, numbers, text, sizes, shapes
        values.check_times(where, run)
        values.check_values(where, run, VALUE_FIELDS)
        conform.check_fields(where, run)
    except values.Refused as exc:
        raise BundleError(str(exc)) from None
    _check_code(where, run)
    _check_artefacts(where, run)
    _check_rebuilds(where, run)


def _check_code(where: str, run: dict[str, Any]) -> None:
    """A user workload's recorded code must be what it claims (workloads/provenance.py)."""
    worker = run.get("worker") if isinstance(run.get("worker"), dict) else {}
    options = run["spec"].get("options") if isinstance(run["spec"].get("options"), dict) else {}
    why = code_problem(str(options.get("workload") or ""), worker.get("workload_code"))
    if why:
        raise BundleError(f"{where}worker.workload_code: {why}")


def _check_spec(where: str, spec: dict[str, Any]) -> None:
    # what pages and labels read from a spec; the rest is shown as given
    shape = spec.get("shape")
    if not (
        isinstance(shape, list)
        and 1 <= len(shape) <= 4
        and all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape)
    ):
        raise BundleError(f"{where}spec.shape must be a list of 1 to 4 whole numbers ≥ 0")
    _typed(f"{where}spec: ", spec, "dtype", (str,), False)
    if not isinstance(spec.get("options", {}), dict):
        raise BundleError(f"{where}spec.options must be an object, got {kind(spec['options'])}")


def _check_artefacts(where: str, run: dict[str, Any]) -> None:
    """Artefact names are safe relative paths, each named by the result, and every file field of
    the result names one: an imported run then never points at a file outside its folder."""
    artefacts = run["artefacts"]
    for name in artefacts:
        if not safe_name(name):
            raise BundleError(
                f"{where}artefact path {_shown(name)} is not allowed; use {PATH_RULE}"
            )
    named = set()
    for field, holder, key in path_fields(run["result"]):
        value = holder[key]
        if not isinstance(value, str):
            raise BundleError(f"{where}result {field} must be a string, got {kind(value)}")
        if value and value not in artefacts:
            raise BundleError(
                f"{where}result {field} is {_shown(value)}, which is not one of the run's "
                "artefacts; a file field names an artefact of the run or is empty"
            )
        named.add(value)
    for name in artefacts:
        if name not in named:
            raise BundleError(
                f"{where}artefact {_shown(name)} is not named by any file field of the result"
            )


def safe_name(name: str) -> bool:
    parts = name.split("/")
    return (
        name.endswith(".json")
        and len(parts) <= MAX_PARTS
        and all(_PART.fullmatch(p) for p in parts)
    )


def _check_rebuilds(where: str, run: dict[str, Any]) -> None:
    # the data is a stranger's: any failure to rebuild or summarise it is a reason to refuse;
    # a failed run's result too, which a done one's summary never reads
    try:
        result = registry.result_from_record(run["experiment"], run["result"])
        registry.summary(Run.from_dict(run), result=result)
    except Exception as exc:
        detail = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
        raise BundleError(
            f"{where}the {run['experiment']} result cannot be rebuilt ({detail}); it must be a "
            "result this Runtime Lab's experiment writes"
        ) from exc


def path_fields(value: Any, field: str = "") -> list[tuple[str, Any, Any]]:
    """(field as text, holder, key) of each `file` or `*_file` entry of a result: the fields
    that hold paths (Chrome traces, allocator snapshot pickles)."""
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            name = f"{field}.{key}" if field else str(key)
            if key == "file" or str(key).endswith("_file"):
                if item is not None:
                    found.append((name, value, key))
            else:
                found.extend(path_fields(item, name))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(path_fields(item, f"{field}[{index}]"))
    return found


def _typed(where: str, data: dict[str, Any], name: str, types: tuple, nullable: bool) -> Any:
    if name not in data:
        raise BundleError(f"{where}field {name!r} is missing; docs/bundles.md lists the fields")
    value = data[name]
    if value is None and nullable:
        return value
    if isinstance(value, types) and not (isinstance(value, bool) and bool not in types):
        return value
    wanted = " or ".join(dict.fromkeys(_WORDS[t] for t in types))
    raise BundleError(
        f"{where}{name} must be {wanted}{' or null' if nullable else ''}, got {kind(value)}"
    )


_WORDS = {str: "a string", int: "a number", float: "a number", dict: "an object", list: "a list"}


def _shown(value: Any) -> str:
    """A value echoed in a message: one line, cut; null, true and false as JSON writes them."""
    text = json.dumps(value) if value is None or isinstance(value, bool) else repr(value)
    return text if len(text) <= 40 else text[:40] + "…"
