"""Bad bundles (issue 13.4): each is refused by `import` with exit 2 and one stderr line saying
what was wrong, no traceback, and the target data dir exactly as it was (rows and files)."""

from __future__ import annotations

import copy
import gzip
import json
import zlib

import pytest
from bundledata import cli, source, state

from runtime_lab.record import Run
from runtime_lab.store import bundle
from runtime_lab.store.history import History


def _pack(doc) -> bytes:
    return gzip.compress(json.dumps(doc).encode())


def _edit(change):
    """A case that edits the good document; most break the last run, so that a checker storing
    run by run would already have stored the first."""

    def make(doc, packed):
        doc = copy.deepcopy(doc)
        change(doc, doc["runs"][-1])
        return _pack(doc)

    return make


def _set(key, value):
    return _edit(lambda doc, run: run.__setitem__(key, value))


def _drop(key):
    return _edit(lambda doc, run: run.pop(key))


def _top(key, value):
    return _edit(lambda doc, run: doc.__setitem__(key, value))


def _artefact(name):
    """The streams run's trace renamed to `name`, its result field following."""

    def change(doc, run):
        run["artefacts"] = {name: run["artefacts"].popitem()[1]}
        run["result"]["trace_file"] = name

    return _edit(change)


def _nested(depth):
    def change(doc, run):
        value = 1
        for _ in range(depth):
            value = [value]
        run["env"]["deep"] = value

    return _edit(change)


def _corrupt_crc(doc, packed):
    return packed[:-8] + bytes([packed[-8] ^ 0xFF]) + packed[-7:]


def _too_big(doc, packed):
    return gzip.compress(b'{"pad": "' + b" " * bundle.MAX_BYTES + b'"}')


CASES = [
    ("not-gzip", lambda d, p: json.dumps(d).encode(), "the file is not gzip-compressed"),
    ("zip-file", lambda d, p: b"PK\x03\x04" + zlib.compress(p), "not gzip-compressed"),
    ("truncated", lambda d, p: p[: len(p) // 2], "the bundle is truncated"),
    ("bad-crc", _corrupt_crc, "the bundle is corrupt (CRC check failed"),
    ("empty-gzip", lambda d, p: gzip.compress(b""), "the bundle is empty"),
    ("not-utf8", lambda d, p: gzip.compress(b'{"a": "\xff"}'), "not UTF-8 text"),
    ("not-json", lambda d, p: gzip.compress(b"runs: 1"), "not valid JSON (Expecting value"),
    ("json-list", lambda d, p: _pack([d]), "the bundle is JSON but a list, not an object"),
    ("json-string", lambda d, p: _pack("runs"), "the bundle is JSON but a string"),
    ("huge-integer", lambda d, p: gzip.compress(b"1" * 5000), "not valid JSON (Exceeds the"),
    ("too-big", _too_big, "the bundle decompresses to more than 64 MiB; at most 64 MiB"),
    ("deep-for-parser", lambda d, p: gzip.compress(b"[" * 200_000), "nests deeper than 64"),
    ("deep-for-check", _nested(70), "nests deeper than 64 levels"),
    ("wrong-format", _top("format", "chrome-trace"), "format is 'chrome-trace', expected"),
    ("no-format", _edit(lambda d, r: d.pop("format")), "bundle: no 'format' field"),
    ("future-version", _top("version", 2), "version 2 is newer than this Runtime Lab reads"),
    ("version-zero", _top("version", 0), "bundle version 0 is not known; this Runtime Lab"),
    ("version-text", _top("version", "1"), "bundle version '1' is not known"),
    ("version-bool", _top("version", True), "bundle version true is not known"),
    ("no-runs", _edit(lambda d, r: d.pop("runs")), "field 'runs' is missing"),
    ("runs-object", _top("runs", {}), "runs must be a list, got an object"),
    ("zero-runs", _top("runs", []), "'runs' holds 0 runs; a bundle holds 1 to 1000"),
    ("exported-by-text", _top("exported_by", "me"), "exported_by must be an object"),
    ("run-not-object", _edit(lambda d, r: d["runs"].append(7)), "run 3: must be an object"),
    ("no-status", _drop("status"), "run 2: field 'status' is missing"),
    ("no-artefacts", _drop("artefacts"), "run 2: field 'artefacts' is missing"),
    ("spec-list", _set("spec", []), "run 2: spec must be an object, got a list"),
    ("status-number", _set("status", 1), "run 2: status must be a string, got a number"),
    ("result-text", _set("result", "ok"), "result must be an object or null, got a string"),
    ("env-null", _set("env", None), "run 2: env must be an object, got null"),
    ("created-text", _set("created_at", "today"), "created_at must be a number, got a string"),
    ("created-bool", _set("created_at", True), "created_at must be a number, got a boolean"),
    ("artefacts-list", _set("artefacts", []), "artefacts must be an object, got a list"),
    ("status-running", _set("status", "running"), "status 'running' is not one of done, fail"),
    ("done-no-result", _set("result", None), "status is 'done' but result is null"),
    (
        "unknown-experiment",
        _edit(lambda d, r: (r.update(experiment="warp"), r["spec"].update(experiment="warp"))),
        "run 2: unknown experiment 'warp'; known: fusion, recompiles",
    ),
    (
        "package-not-experiment",
        _edit(lambda d, r: (r.update(experiment="lab"), r["spec"].update(experiment="lab"))),
        "run 2: unknown experiment 'lab'; known:",
    ),
    ("experiment-mismatch", _set("experiment", "fusion"), "spec.experiment is 'streams' but"),
    ("bad-shape", _edit(lambda d, r: r["spec"].update(shape="4096")), "spec.shape must be"),
    (
        "result-missing-field",
        _edit(lambda d, r: r["result"].pop("max_abs_diff")),
        "run 2: the streams result cannot be rebuilt (TypeError",
    ),
    (
        "result-wrong-shape",
        _edit(lambda d, r: r["result"].update(variants="many")),
        "the streams result cannot be rebuilt (AttributeError",
    ),
    ("path-dotdot", _artefact("../../escape.json"), "artefact path '../../escape.json' is not"),
    ("path-inner-dotdot", _artefact("traces/../../x.json"), "is not allowed; use a relative"),
    ("path-absolute", _artefact("/tmp/escape.json"), "artefact path '/tmp/escape.json' is not"),
    ("path-backslash", _artefact("..\\..\\x.json"), "is not allowed"),
    ("path-drive", _artefact("C:/x.json"), "artefact path 'C:/x.json' is not allowed"),
    ("path-hidden", _artefact(".bashrc.json"), "is not allowed"),
    ("path-pickle", _artefact("allocator/x.pickle"), "'allocator/x.pickle' is not allowed"),
    ("path-deep", _artefact("a/b/c/d/e.json"), "'a/b/c/d/e.json' is not allowed"),
    (
        "field-outside",
        _edit(lambda d, r: r["result"].update(trace_file="/etc/passwd")),
        "result trace_file is '/etc/passwd', which is not one of the run's artefacts",
    ),
    (
        "field-not-text",
        _edit(lambda d, r: r["result"].update(trace_file=["x"])),
        "result trace_file must be a string, got a list",
    ),
    (
        "unnamed-artefact",
        _edit(lambda d, r: r["artefacts"].update({"traces/extra.json": {}})),
        "artefact 'traces/extra.json' is not named by any file field",
    ),
    (
        "same-run-twice",
        _edit(lambda d, r: d["runs"].append(copy.deepcopy(r))),
        "runs 2 and 3 of the bundle are the same run",
    ),
]


@pytest.fixture
def good(tmp_path):
    """A good two-run bundle (fusion and streams, each with its trace) and a target data dir B
    that already holds a run and a file: (document, packed bytes, B)."""
    lab_a, lab_b = tmp_path / "A", tmp_path / "B"
    ids = source(lab_a, legacy=False)[:2]
    packed = bundle.export_runs(History(lab_a / "history.sqlite3"), ids, lab_a)
    (lab_b / "traces").mkdir(parents=True)
    (lab_b / "traces" / "local-eager.json").write_text("{}")
    local = {"job_id": "local1", "experiment": "selftest", "device": "cpu", "status": "failed"}
    local |= {"label": "selftest 8", "spec": {"experiment": "selftest"}, "created_at": 1.0}
    local |= {"env": {"hostname": "b"}, "error": "x"}
    History(lab_b / "history.sqlite3").add(Run.from_dict(local))
    return json.loads(gzip.decompress(packed)), packed, lab_b


def test_the_good_bundle_imports(good, tmp_path):
    doc, packed, lab_b = good
    path = tmp_path / "good.json.gz"
    path.write_bytes(packed)
    done = cli(lab_b, "import", str(path))
    assert done.returncode == 0 and len(done.stdout.splitlines()) == 2, done.stderr


@pytest.mark.parametrize(("make", "fragment"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_bad_bundle_is_refused_whole(good, tmp_path, make, fragment):
    doc, packed, lab_b = good
    path = tmp_path / "bad.json.gz"
    path.write_bytes(make(doc, packed))
    before = state(lab_b)
    done = cli(lab_b, "import", str(path))
    assert done.returncode == 2, done.stdout + done.stderr
    assert not done.stdout and len(done.stderr.splitlines()) == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith(f"runtime_lab: error: cannot import {path}: ")
    assert fragment in done.stderr and done.stderr.rstrip().endswith("nothing was imported")
    assert state(lab_b) == before
    assert not (tmp_path / "escape.json").exists() and not (tmp_path / "x.json").exists()


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["import", "{tmp}/missing.json.gz"], "FILE {tmp}/missing.json.gz: does not exist"),
        (["import", "{tmp}"], "FILE {tmp}: is a directory, not a file"),
        (["import", ""], "FILE is empty; expected a file path"),
        (["export", "1", "--out", "{tmp}/nope/x.json.gz"], "parent directory {tmp}/nope does"),
        (["export", "1", "--out", "{tmp}/x.json"], "must end in .json.gz"),
        (["export", "1", "--out", "{tmp}"], "must end in .json.gz"),
        (["export", "one", "--out", "{tmp}/x.json.gz"], "ID must be an integer from 1 to"),
        (["export", "0", "--out", "{tmp}/x.json.gz"], "ID must be an integer from 1 to"),
    ],
)
def test_paths_and_ids_are_checked_up_front(tmp_path, args, fragment):
    lab = tmp_path / "lab"
    done = cli(lab, *[a.format(tmp=tmp_path) for a in args])
    assert done.returncode == 2 and not done.stdout
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr
    assert fragment.format(tmp=tmp_path) in done.stderr
    assert not lab.exists()  # refused before the data dir was made
