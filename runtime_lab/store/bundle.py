"""Bundles: recorded runs and their JSON artefacts as one versioned .json.gz, out and back in."""

# Format and limits: docs/bundles.md. Reading is JSON only (never pickle or eval), bounded in
# size and depth, and every run is checked (bundle_check) before anything is written.

from __future__ import annotations

import copy
import gzip
import io
import json
import platform
import time
import zlib
from pathlib import Path
from typing import Any, BinaryIO

from runtime_lab import __version__
from runtime_lab.record import BUNDLE, VIEWS, Run
from runtime_lab.store import artefacts, gzipped
from runtime_lab.store.artefacts import IMPORTED
from runtime_lab.store.bundle_check import (
    FORMAT,
    TOO_DEEP,
    VERSION,
    BundleError,
    check_depth,
    check_document,
    check_run,
    path_fields,
    safe_name,
)
from runtime_lab.store.history import DuplicateRun
from runtime_lab.store.identity import fingerprint

__all__ = ["BundleError", "export_runs", "import_bytes", "import_file", "read"]

MAX_BYTES = 64 * 1024 * 1024  # decompressed JSON; the Streamlit upload limit is 20 MB packed
_FOLDER_CHARS = 16  # of the fingerprint, naming the run's folder


def export_runs(history: Any, ids: list[int], data_dir: str | Path) -> bytes:
    """The runs `ids` of `history` as bundle bytes (gzip). BundleError for an unknown id, a run
    an import would refuse, or a bundle past MAX_BYTES."""
    root = Path(data_dir).resolve()
    runs = []
    for run_id in dict.fromkeys(ids):  # an id given twice is exported once
        row = history.get(run_id)
        if row is None:
            raise BundleError(f"no run #{run_id} in history (`history` lists the runs)")
        run = _exported(row, root)
        try:  # refuse now what the import would refuse later
            check_run(0, run)
        except BundleError as exc:
            why = str(exc).removeprefix("run 0: ")
            raise BundleError(f"run #{run_id} cannot be exported: {why}") from exc
        runs.append(run)
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": time.time(),
        "exported_by": {"lab": __version__, "hostname": platform.node()},
        "runs": runs,
    }
    text = json.dumps(doc).encode()
    if len(text) > MAX_BYTES:
        raise BundleError(
            f"the bundle would be {_mib(len(text))} of JSON, over the {_mib(MAX_BYTES)} an "
            "import reads; export fewer runs per bundle"
        )
    return gzip.compress(text, compresslevel=6)


def _exported(row: Run, root: Path) -> dict[str, Any]:
    """A stored run as a bundle's run: the record's bundle fields and the artefacts."""
    run = row.to_dict(BUNDLE)
    run["env"] = run["env"] or {}
    run["result"] = copy.deepcopy(run["result"])
    artefacts: dict[str, Any] = {}
    sources: dict[str, Path] = {}
    for _, holder, key in path_fields(run["result"]):
        name, path, content = _artefact(holder[key], root)
        if name and sources.setdefault(name, path) != path:
            name = ""  # two files of one run under one name: keep the first
        holder[key] = name  # a file not carried (a pickle, gone) leaves the field empty
        if name:
            artefacts[name] = content
    run["artefacts"] = artefacts
    return run


def _artefact(value: Any, root: Path) -> tuple[str, Path | None, Any]:
    """A file field's bundle name, path and JSON content; ("", None, None) when not carried:
    snapshot pickles never are, nor anything outside the data dir or not JSON."""
    if not isinstance(value, str) or not value.endswith(".json"):
        return "", None, None
    path = Path(value).resolve()
    if not path.is_relative_to(root):
        return "", None, None
    parts = path.relative_to(root).parts
    if parts[:1] == (IMPORTED,) and len(parts) > 2:
        parts = parts[2:]  # an imported run's file, under the name it came with
    name = "/".join(parts)
    try:
        if not safe_name(name) or not path.is_file() or path.stat().st_size > MAX_BYTES:
            return "", None, None
        return name, path, json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return "", None, None


def read(stream: BinaryIO) -> dict[str, Any]:
    """A bundle's document from its gzip bytes: bounded read, JSON only, depth checked.
    Raises BundleError with what was wrong; the envelope and runs are check_document's."""
    raw = _decompressed(stream)
    if not raw:
        raise BundleError("the bundle is empty; a bundle is gzip-compressed JSON")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BundleError("the bundle is not UTF-8 text; a bundle holds JSON") from exc
    try:
        doc = json.loads(text)
    except RecursionError as exc:  # the C parser gives up on very deep input (about 1000)
        raise BundleError(TOO_DEEP) from exc
    except json.JSONDecodeError as exc:
        raise BundleError(
            f"the bundle is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from exc
    except ValueError as exc:  # an integer over 4300 digits; after ":" is advice for programmers
        raise BundleError(f"the bundle is not valid JSON ({str(exc).split(':')[0]})") from exc
    check_depth(doc)
    return doc


def _decompressed(stream: BinaryIO) -> bytes:
    # read() of one byte past the limit, never gzip.decompress: a small bomb stays small
    try:
        with gzip.GzipFile(fileobj=stream, mode="rb") as packed:
            raw = packed.read(MAX_BYTES + 1)
    except gzip.BadGzipFile as exc:
        if extra := gzipped.after_the_data(stream, MAX_BYTES):  # "Not a gzipped file", yet it is
            raise BundleError(extra) from exc
        if str(exc).startswith("Not a gzipped file"):
            raise BundleError(
                "the file is not gzip-compressed; a bundle is the .json.gz that "
                "`python -m runtime_lab export` writes"
            ) from exc
        raise BundleError(f"the bundle is corrupt ({exc}); export it again") from exc
    except EOFError as exc:
        if extra := gzipped.after_the_data(stream, MAX_BYTES):  # a second member cut short
            raise BundleError(extra) from exc
        raise BundleError(
            "the bundle is truncated: its gzip data ends early; copy or export it again"
        ) from exc
    except (zlib.error, OSError) as exc:
        raise BundleError(f"the bundle is corrupt ({exc}); export it again") from exc
    if len(raw) > MAX_BYTES:
        raise BundleError(
            f"the bundle decompresses to more than {_mib(MAX_BYTES)}; at most {_mib(MAX_BYTES)} "
            "is read (export fewer runs per bundle)"
        )
    return raw


def import_bytes(data: bytes, history: Any, data_dir: str | Path) -> list[int]:
    """Import a bundle's bytes (an upload): every run checked, then all stored or none.
    Returns the new run ids; BundleError says what was wrong and nothing is stored."""
    return import_stream(io.BytesIO(data), history, data_dir)


def import_file(path: str | Path, history: Any, data_dir: str | Path) -> list[int]:
    with open(path, "rb") as stream:
        return import_stream(stream, history, data_dir)


def import_stream(stream: BinaryIO, history: Any, data_dir: str | Path) -> list[int]:
    """Read, check every run, refuse any already stored, then write files and rows."""
    doc = read(stream)
    runs = check_document(doc)
    root = Path(data_dir).resolve()
    labels = [run["label"] for run in runs]
    return _store(_prepared(doc, runs, root), history, labels)


def _prepared(doc: dict, runs: list[dict], root: Path) -> list[tuple[Run, Path, dict]]:
    """Each run as the Run to add to history and the (path, content) files to write."""
    seen: dict[str, int] = {}
    found = []
    for number, run in enumerate(runs, 1):
        host = _host(run, doc)
        mark = fingerprint(run["job_id"], run["created_at"], host, run["spec"])
        if mark in seen:
            raise BundleError(
                f"runs {seen[mark]} and {number} of the bundle are the same run (job, time, host "
                "and spec); a bundle holds each run once"
            )
        seen[mark] = number  # one already in history: add_many refuses it, in its transaction
        found.append(_imported(run, mark, host, root))
    return found


def _imported(run: dict, mark: str, host: str | None, root: Path) -> tuple[Run, Path, dict]:
    folder = artefacts.new_folder(root / IMPORTED, mark[:_FOLDER_CHARS])
    files = run["artefacts"]
    for name in files:  # safe_name's rule, checked again where it counts
        if not (folder / name).resolve().is_relative_to(folder.resolve()):
            raise BundleError(f"artefact {name!r} would be written outside {folder}")
    result = copy.deepcopy(run["result"])
    for _, holder, key in path_fields(result):
        holder[key] = str(folder / holder[key]) if holder[key] else ""
    origin = {
        "imported_at": time.time(),
        "origin_host": host,
        "origin_gpu": _gpu(run),
        "bundle_version": VERSION,
        "fingerprint": mark,
    }
    carried = {name: run[name] for name in VIEWS[BUNDLE]}  # never a stranger's id or origin
    return Run.from_dict({**carried, "result": result, "origin": origin}), folder, files


def _host(run: dict, doc: dict) -> str | None:
    host = run["env"].get("hostname") or doc["exported_by"]["hostname"]
    return host if isinstance(host, str) else None


def _gpu(run: dict) -> str | None:
    """The GPU's name when the run was on one (the device's index in env.gpus), else None."""
    device = run["device"]
    gpus = run["env"].get("gpus")
    if not device.startswith("cuda") or not isinstance(gpus, list):
        return None
    index = device.partition(":")[2] or "0"
    names = [g.get("name") for g in gpus if isinstance(g, dict) and str(g.get("index")) == index]
    return names[0] if names and isinstance(names[0], str) else None


def _store(prepared: list[tuple[Run, Path, dict]], history: Any, labels: list[str]) -> list[int]:
    """Each run's artefacts into a folder of its own, then every row in one transaction; a
    failure removes the folders this import wrote, and only those."""
    written: list[Path] = []
    try:
        for _, folder, files in prepared:
            written.append(folder)  # before the write: a half-written folder goes too
            artefacts.write_folder(folder, files)
        return history.add_many([row for row, _, _ in prepared])
    except DuplicateRun as exc:
        _remove(written)
        label = labels[exc.number - 1] if 0 < exc.number <= len(labels) else "a run"
        where = f" as run #{exc.existing}" if exc.existing is not None else ""
        raise BundleError(
            f"run {exc.number} ({one_line(label)}) is already in history{where}; a run is "
            "stored once (delete that run to import it again)"
        ) from exc
    except BaseException:
        _remove(written)
        raise


def _remove(folders: list[Path]) -> None:
    for folder in folders:
        artefacts.remove_folder(folder)


def one_line(text: Any, limit: int = 500) -> str:
    """A bundle's text (a label, a host name) as it may be echoed: one line, cut."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[:limit] + "…"


def _mib(count: int) -> str:
    return f"{count / 1024 / 1024:.0f} MiB" if count >= 1024 * 1024 else f"{count} bytes"
