"""Bundles (issue 13.3): `export` then `import` into another data dir brings back every run as it
was (figures, report, traces), marked imported, as new runs; pickles never travel."""

from __future__ import annotations

import dataclasses
import gzip
import json
import sqlite3
from pathlib import Path

import pytest
from bundledata import GPU, cli, source, state, streams_trace

from runtime_lab import registry
from runtime_lab.record import Run
from runtime_lab.store import bundle
from runtime_lab.store.history import History, HistoryError

# the allocator's figures list its snapshot pickles' paths: those stay behind, so they differ
PICKLE_FIGURES = ("snapshots", "snapshots_before_empty_cache")


def _figures(run: dict) -> dict | None:
    found = json.loads(json.dumps(registry.summary(run), default=str))
    return {k: v for k, v in found.items() if k not in PICKLE_FIGURES} if found else found


def _picture(run: dict) -> dict:
    rep = registry.build_report(run)
    return {
        "headline": rep.headline,
        "ok": rep.ok,
        "metrics": [[m.label, m.value] for m in rep.metrics],
        "charts": [t for t, _ in rep.charts],
        "tables": [[t, len(df)] for t, df in rep.tables],
        "warnings": list(rep.warnings),
    }


def _downloads(run: dict) -> dict[str, bytes]:
    return {label: data for label, _, data, _ in registry.build_report(run).downloads}


@pytest.fixture
def exported(tmp_path):
    """Data dir A with every kind of run, exported whole by the CLI: (A, ids, bundle path)."""
    lab_a = tmp_path / "A"
    ids = source(lab_a)
    out = tmp_path / "runs.json.gz"
    done = cli(lab_a, "export", *map(str, ids), "--out", str(out))
    assert done.returncode == 0 and not done.stderr, done.stderr
    assert done.stdout.splitlines() == [
        f"exported run #{i} ({History(lab_a / 'history.sqlite3').get(i)['label']}) to {out}"
        for i in ids
    ]
    return lab_a, ids, out


def test_round_trip_brings_back_every_run_as_new_imported_runs(exported, tmp_path):
    lab_a, ids, out = exported
    before_a = state(lab_a)
    lab_b = tmp_path / "B"
    done = cli(lab_b, "import", str(out))
    assert done.returncode == 0 and not done.stderr, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(ids) and all(line.startswith("imported run #") for line in lines)
    a, b = History(lab_a / "history.sqlite3"), History(lab_b / "history.sqlite3")
    assert sorted(r["id"] for r in b.list()) == list(range(1, len(ids) + 1))  # new ids
    for old_id, new_id in zip(ids, range(1, len(ids) + 1), strict=True):
        old, new = a.get(old_id), b.get(new_id)
        assert old["origin"] is None and new["origin"] is not None
        for key in ("job_id", "experiment", "device", "status", "label", "spec", "env", "error"):
            assert new[key] == old[key], key
        for key in ("created_at", "started_at", "finished_at", "process_probe", "worker"):
            assert new[key] == old[key], key
        assert _figures(new) == _figures(old)
        assert _picture(new) == _picture(old)
        origin = new["origin"]
        assert set(origin) == {
            "imported_at",
            "origin_host",
            "origin_gpu",
            "bundle_version",
            "fingerprint",
        }
        assert origin["origin_host"] == old["env"]["hostname"] and origin["bundle_version"] == 1
        gpus = old["env"].get("gpus") or []
        on_gpu = old["device"].startswith("cuda") and bool(gpus)
        assert origin["origin_gpu"] == (gpus[0]["name"] if on_gpu else None)
        assert f"#{new_id} ({old['label']}) from {origin['origin_host']}" in lines[new_id - 1]
    assert state(lab_a) == before_a  # exporting changed nothing at the source


def test_traces_travel_and_redraw_from_the_import_folder(exported, tmp_path):
    lab_a, ids, out = exported
    lab_b = tmp_path / "B"
    assert cli(lab_b, "import", str(out)).returncode == 0
    b = History(lab_b / "history.sqlite3")
    by_label = {r["label"]: b.get(r["id"]) for r in b.list()}
    streams = by_label["streams 4096x4096 float32 cuda (H200)"]
    fusion = by_label["fusion 4096x4096 float32 cuda sweep=256,4096"]
    # a folder of its own per import: the fingerprint's start, then a random part
    folder = Path(streams["result"]["trace_file"]).parents[1]
    assert folder.parent == lab_b / "imported"
    assert folder.name.startswith(streams["origin"]["fingerprint"][:16] + "-")
    assert streams["result"]["trace_file"] == str(folder / "traces" / "e4418a3fa92b-streams.json")
    assert json.loads(_downloads(streams)["Chrome trace (Perfetto)"]) == streams_trace()
    eager = fusion["result"]["modes"][0]
    assert Path(eager["trace_file"]).is_file() and eager["trace_file"].startswith(str(lab_b))
    original = json.loads((lab_a / "traces" / "0a1b2c3d4e5f-eager.json").read_text())
    assert json.loads(_downloads(fusion)["Trace: eager"]) == original
    # the legacy runs' traces were gone before the export: no field points anywhere
    legacy_streams = b.get(2)
    assert legacy_streams["result"]["trace_file"] in ("", None)


def test_allocator_pickles_never_travel(exported, tmp_path):
    lab_a, ids, out = exported
    raw = gzip.decompress(out.read_bytes())
    assert b".pickle" not in raw and b"\\x80\\x04" not in raw
    doc = json.loads(raw)
    names = [n for run in doc["runs"] for n in run["artefacts"]]
    assert names and all(n.endswith(".json") for n in names)
    a = History(lab_a / "history.sqlite3")
    source_run = next(a.get(i) for i in ids if a.get(i)["job_id"] == "h200alloc0001")
    assert any(d.startswith("Snapshot ") for d in _downloads(source_run))  # they exist at A
    lab_b = tmp_path / "B"
    assert cli(lab_b, "import", str(out)).returncode == 0
    b = History(lab_b / "history.sqlite3")
    run = next(b.get(r["id"]) for r in b.list() if r["label"].startswith("allocator 1024"))
    assert all(s["file"] == "" for s in run["result"]["snapshots"])
    assert not any(d.startswith("Snapshot ") for d in _downloads(run))
    assert not list(lab_b.rglob("*.pickle"))


def test_importing_the_same_bundle_twice_is_refused(exported, tmp_path):
    lab_a, ids, out = exported
    lab_b = tmp_path / "B"
    assert cli(lab_b, "import", str(out)).returncode == 0
    before = state(lab_b)
    again = cli(lab_b, "import", str(out))
    assert again.returncode == 2 and not again.stdout
    assert len(again.stderr.splitlines()) == 1 and "Traceback" not in again.stderr
    assert "is already in history as run #1" in again.stderr
    assert state(lab_b) == before
    # and back into A, where the runs were made
    home = cli(lab_a, "import", str(out))
    assert home.returncode == 2 and f"already in history as run #{ids[0]}" in home.stderr


def test_an_imported_run_exported_again_is_still_the_same_run(exported, tmp_path):
    lab_a, ids, out = exported
    lab_b, lab_c = tmp_path / "B", tmp_path / "C"
    assert cli(lab_b, "import", str(out)).returncode == 0
    again = tmp_path / "again.json.gz"
    last = len(ids)  # the fusion, streams and allocator runs came last
    assert cli(lab_b, "export", str(last - 1), "--out", str(again)).returncode == 0
    doc = json.loads(gzip.decompress(again.read_bytes()))
    assert list(doc["runs"][0]["artefacts"]) == ["traces/e4418a3fa92b-streams.json"]
    assert cli(lab_c, "import", str(again)).returncode == 0
    assert cli(lab_c, "import", str(out)).returncode == 2  # C has that run already
    assert cli(lab_a, "import", str(again)).returncode == 2


def test_export_refuses_an_unknown_run_and_writes_nothing(tmp_path):
    lab_a = tmp_path / "A"
    source(lab_a, legacy=False)
    out = tmp_path / "x.json.gz"
    done = cli(lab_a, "export", "1", "99", "--out", str(out))
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert "no run #99 in history" in done.stderr and not out.exists()


def test_export_refuses_a_bundle_past_the_size_limit(tmp_path, monkeypatch):
    lab_a = tmp_path / "A"
    ids = source(lab_a, legacy=False)
    monkeypatch.setattr(bundle, "MAX_BYTES", 10_000)
    with pytest.raises(bundle.BundleError, match="over the 10000 bytes an import reads"):
        bundle.export_runs(History(lab_a / "history.sqlite3"), ids, lab_a)


def test_export_refuses_a_run_an_import_would_refuse(tmp_path):
    history = History(tmp_path / "h.sqlite3")
    odd = {"job_id": "j", "experiment": "fusion", "device": "cpu", "status": "running"}
    odd |= {"label": "x", "spec": {"experiment": "fusion", "shape": [8], "dtype": "float32"}}
    run_id = history.add(Run.from_dict(odd | {"env": {}, "created_at": 1.0, "result": None}))
    with pytest.raises(bundle.BundleError) as refused:
        bundle.export_runs(history, [run_id], tmp_path)
    assert str(refused.value) == (
        f"run #{run_id} cannot be exported: status 'running' is not one of done, failed, cancelled"
    )


def test_import_bytes_and_export_runs_are_the_page_helpers(tmp_path):
    lab_a, lab_b = tmp_path / "A", tmp_path / "B"
    ids = source(lab_a, legacy=False)
    data = bundle.export_runs(History(lab_a / "history.sqlite3"), ids, lab_a)
    lab_b.mkdir()
    history = History(lab_b / "history.sqlite3")
    assert bundle.import_bytes(data, history, lab_b) == [1, 2, 3]
    assert history.get(1)["origin"]["origin_gpu"] == GPU[0]["name"]


def test_a_failed_history_write_leaves_no_artefacts(tmp_path, monkeypatch):
    lab_a, lab_b = tmp_path / "A", tmp_path / "B"
    ids = source(lab_a, legacy=False)
    data = bundle.export_runs(History(lab_a / "history.sqlite3"), ids, lab_a)
    lab_b.mkdir()
    history = History(lab_b / "history.sqlite3")

    def locked(runs):
        assert list(lab_b.rglob("*.json")), "the artefacts are written before the rows"
        raise HistoryError("history database history.sqlite3 is locked")

    monkeypatch.setattr(history, "add_many", locked)
    with pytest.raises(HistoryError):
        bundle.import_bytes(data, history, lab_b)
    assert not list((lab_b / "imported").rglob("*")) and history.list() == []


def test_add_many_is_one_transaction(tmp_path):
    history = History(tmp_path / "h.sqlite3")
    good = Run(job_id="j", experiment="selftest", device="cpu", status="done", spec={})
    good = dataclasses.replace(good, label="x", created_at=1.0)
    bad = dataclasses.replace(good, experiment=None)  # NOT NULL: fails on the second insert
    with pytest.raises(HistoryError):
        history.add_many([good, bad])
    assert history.list() == []
    assert history.add_many([good, good]) == [1, 2]


def test_an_old_database_gets_the_origin_column(tmp_path):
    source(tmp_path / "A")  # the legacy fixture, opened by today's History
    with sqlite3.connect(tmp_path / "A" / "history.sqlite3") as conn:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(runs)")}
    assert "origin_json" in columns
    assert History(tmp_path / "A" / "history.sqlite3").get(1)["origin"] is None


def test_a_symlink_planted_in_the_import_folder_does_not_lead_writes_outside(tmp_path):
    lab_a, lab_b, outside = tmp_path / "A", tmp_path / "B", tmp_path / "outside"
    ids = source(lab_a, legacy=False)
    data = bundle.export_runs(History(lab_a / "history.sqlite3"), ids[1:2], lab_a)  # streams
    run = json.loads(gzip.decompress(data))["runs"][0]
    mark = bundle.fingerprint(run["job_id"], run["created_at"], run["env"]["hostname"], run["spec"])
    folder = lab_b / "imported" / mark[:16]
    folder.mkdir(parents=True)
    outside.mkdir()
    (folder / "traces").symlink_to(outside)  # planted where the import once wrote
    history = History(lab_b / "history.sqlite3")
    [run_id] = bundle.import_bytes(data, history, lab_b)
    # the import writes a new folder with a name nobody can guess, never a planted one
    trace = Path(history.get(run_id)["result"]["trace_file"])
    assert trace.is_file() and not trace.is_symlink() and folder not in trace.parents
    assert trace.resolve().is_relative_to((lab_b / "imported").resolve())
    assert not list(outside.iterdir())


def test_a_label_from_a_bundle_is_echoed_on_one_line(tmp_path):
    lab_a, lab_b = tmp_path / "A", tmp_path / "B"
    ids = source(lab_a, legacy=False)
    doc = json.loads(
        gzip.decompress(bundle.export_runs(History(lab_a / "history.sqlite3"), ids, lab_a))
    )
    lab_b.mkdir()
    history = History(lab_b / "history.sqlite3")
    bundle.import_bytes(gzip.compress(json.dumps(doc).encode()), history, lab_b)
    with pytest.raises(bundle.BundleError) as refused:
        bundle.import_bytes(gzip.compress(json.dumps(doc).encode()), history, lab_b)
    assert "already in history as run #1" in str(refused.value)
    doc["runs"][0]["label"] = "fusion\nTraceback (most recent call last):"  # not in the fingerprint
    with pytest.raises(bundle.BundleError) as refused:
        bundle.import_bytes(gzip.compress(json.dumps(doc).encode()), history, lab_b)
    assert str(refused.value).startswith("run 1: label: holds control character U+000A at ")
    assert "\n" not in str(refused.value)


@pytest.mark.slow
def test_a_real_cpu_run_round_trips_with_its_profiler_trace(tmp_path):
    lab_a, lab_b = tmp_path / "A", tmp_path / "B"
    tiny = ["--shape", "64x64", "--device", "cpu", "--modes", "eager", "--compile-latency", "false"]
    made = cli(lab_a, "run", "fusion", *tiny, "--repeat", "5", "--warmup", "1")
    assert made.returncode == 0, made.stderr
    out = tmp_path / "run.json.gz"
    assert cli(lab_a, "export", "1", "--out", str(out)).returncode == 0
    done = cli(lab_b, "import", str(out))
    assert done.returncode == 0, done.stderr
    old = History(lab_a / "history.sqlite3").get(1)
    new = History(lab_b / "history.sqlite3").get(1)
    assert _figures(new) == _figures(old) and _picture(new) == _picture(old)
    trace = _downloads(new)["Trace: eager"]  # the profiler's own Chrome trace, from B
    assert json.loads(trace) == json.loads(_downloads(old)["Trace: eager"])
    assert new["result"]["modes"][0]["trace_file"].startswith(str(lab_b / "imported"))


def test_each_run_is_rebuilt_once_by_the_export_and_once_by_the_import(tmp_path, monkeypatch):
    """Its result rebuilt and summarised to check it (the summary reused the rebuilt result)."""
    lab_a, lab_b = tmp_path / "A", tmp_path / "B"
    ids = source(lab_a, legacy=False)
    rebuilt = []
    real = registry.result_from_record

    def counted(experiment, data):
        rebuilt.append(experiment)
        return real(experiment, data)

    monkeypatch.setattr(registry, "result_from_record", counted)
    data = bundle.export_runs(History(lab_a / "history.sqlite3"), ids, lab_a)
    assert rebuilt == ["fusion", "streams", "allocator"]
    lab_b.mkdir()
    assert bundle.import_bytes(data, History(lab_b / "history.sqlite3"), lab_b) == [1, 2, 3]
    assert rebuilt == ["fusion", "streams", "allocator"] * 2
