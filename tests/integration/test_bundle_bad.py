"""Bad bundles (issue 13.4): each is refused by `import` with exit 2 and one stderr line saying
what was wrong, no traceback, and the target data dir exactly as it was (rows and files).
The matrix runs the CLI in-process (its main(), as tests/integration/test_reliability_inputs.py
does: 0.7 s of interpreter start saved per case); `python -m runtime_lab` itself imports a good
bundle and refuses a bad one below, and checks paths and ids up front."""

from __future__ import annotations

import copy
import gzip
import json
import math
import zlib

import pytest
from bundledata import cli, source, state

from runtime_lab.cli import main as cli_main
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


YEAR_3000 = 32503680000  # 3000-01-01 in Unix seconds
ESCAPED = {"lab": "0.1", "hostname": "\x1b]0;owned\x07"}


def _env(key, value):
    return _edit(lambda doc, run: run["env"].__setitem__(key, value))


def _spec(key, value):
    return _edit(lambda doc, run: run["spec"].__setitem__(key, value))


def _result(key, value):
    return _edit(lambda doc, run: run["result"].__setitem__(key, value))


def _sweep_number(doc, run):
    doc["runs"][0]["spec"]["options"]["sweep"] = 5  # the fusion run's: a comma list of sides


def _in_ms(doc, run):
    run["created_at"] *= 1000


def _backwards(doc, run):
    run["started_at"] = run["finished_at"] + 10


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
        "run 2: result.variants: must be a list, got a string",
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
        "run 2: result.trace_file: must be a string, got a list",
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
    # issue 26.3: values a reader uses (History's table, the report, compare, the CLI)
    ("finished-1e300", _set("finished_at", 1e300), "run 2: finished_at: 1e+300 is not a time be"),
    ("created-infinity", _set("created_at", math.inf), "run 2: created_at: Infinity is not a time"),
    ("started-nan", _set("started_at", math.nan), "run 2: started_at: NaN is not a time between"),
    ("created-year-3000", _set("created_at", YEAR_3000), "created_at: 32503680000 is not a time"),
    ("created-in-ms", _edit(_in_ms), "run 2: created_at: 1796226136435.705 is not a time"),
    ("created-1970", _set("created_at", 1.0), "created_at: 1.0 is not a time between 2020-01-01"),
    ("started-after-end", _edit(_backwards), "run 2: started_at 1796226162.938281 is after fini"),
    ("worker-number", _set("worker", 5), "run 2: worker must be an object or null, got a number"),
    ("alongside-number", _set("worker", {"alongside": 5}), "worker.alongside: must be a list, got"),
    ("alongside-item", _set("worker", {"alongside": [5]}), "worker.alongside[0]: must be an obj"),
    ("env-gpus-number", _env("gpus", 5), "run 2: env.gpus: must be a list, got a number"),
    ("env-gpu-name", _env("gpus", [{"name": 7}]), "run 2: env.gpus[0].name: must be a string, got"),
    ("probe-job-list", _set("process_probe", {"job": [1]}), "process_probe.job: must be an object"),
    ("probe-number", _set("process_probe", 5), "run 2: process_probe must be an object or null"),
    (
        "options-number",
        _edit(_sweep_number),
        "run 1: spec.options.sweep: must be a string, got a n",
    ),
    ("options-list", _spec("options", [1]), "run 2: spec.options must be an object, got a list"),
    ("spec-repeat-text", _spec("repeat", "50"), "run 2: spec.repeat: must be a whole number, got"),
    ("result-float-text", _result("max_abs_diff", "0"), "result.max_abs_diff: must be a number, g"),
    ("result-text-null", _result("device", None), "run 2: result.device: must be a string, got nu"),
    (
        "result-infinity",
        _result("max_abs_diff", math.inf),
        "max_abs_diff: Infinity is not a finite",
    ),
    ("huge-int-env", _env("host_cores", 2**70), "env.host_cores: 1180591620717411303424 is beyond"),
    ("int64-seed", _spec("seed", 2**63), "run 2: spec.seed: 9223372036854775808 is beyond ±2**53"),
    (
        "label-surrogate",
        _set("label", "a\ud800"),
        "run 2: label: holds a lone surrogate (U+D800 at",
    ),
    ("result-surrogate", _result("device", "cuda\udc00"), "result.device: holds a lone surrogate"),
    (
        "key-surrogate",
        _env("\udfff", 1),
        "run 2: env key '\\udfff': holds a lone surrogate (U+DFFF",
    ),
    ("label-escape", _set("label", "\x1b[31mred"), "label: holds control character U+001B at char"),
    (
        "host-newline",
        _env("hostname", "a\nb"),
        "run 2: env.hostname: holds control character U+000A",
    ),
    ("error-bell", _set("error", "line\n\x07"), "error: holds control character U+0007 at charac"),
    ("exporter-escape", _top("exported_by", ESCAPED), "exported_by.hostname: holds control charac"),
    (
        "label-too-long",
        _set("label", "x" * 10_001),
        "run 2: label: 10,001 characters; at most 10,000",
    ),
    (
        "list-too-long",
        _env("extra", [0] * 20_001),
        "env.extra: a list of 20,001 items; a list holds",
    ),
    ("too-many-values", _env("extra", [[0] * 20_000] * 51), "holds more than 1,000,000 values; a"),
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


def _refused_whole(code, out, err, path, fragment):
    assert code == 2, out + err
    assert not out and len(err.splitlines()) == 1, err
    assert "Traceback" not in err
    assert err.startswith(f"runtime_lab: error: cannot import {path}: ")
    assert fragment in err and err.rstrip().endswith("nothing was imported")


def test_the_process_imports_the_good_bundle_and_refuses_a_bad_one(good, tmp_path):
    """`python -m runtime_lab import` itself: the exit status and the lines a shell sees."""
    doc, packed, lab_b = good
    bad = tmp_path / "bad.json.gz"
    bad.write_bytes(packed[: len(packed) // 2])
    before = state(lab_b)
    done = cli(lab_b, "import", str(bad))
    _refused_whole(done.returncode, done.stdout, done.stderr, bad, "the bundle is truncated")
    assert state(lab_b) == before
    path = tmp_path / "good.json.gz"
    path.write_bytes(packed)
    done = cli(lab_b, "import", str(path))
    assert done.returncode == 0 and len(done.stdout.splitlines()) == 2, done.stderr


@pytest.mark.parametrize(("make", "fragment"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_bad_bundle_is_refused_whole(good, tmp_path, make, fragment, capsys):
    doc, packed, lab_b = good
    path = tmp_path / "bad.json.gz"
    path.write_bytes(make(doc, packed))
    before = state(lab_b)
    capsys.readouterr()
    code = cli_main.main(["--data-dir", str(lab_b), "import", str(path)])
    out, err = capsys.readouterr()
    _refused_whole(code, out, err, path, fragment)
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
