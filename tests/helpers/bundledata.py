"""Recorded runs for the bundle tests: a data dir with every experiment's runs, their Chrome
traces and allocator pickles on disk; the CLI as a subprocess; a data dir's stored state."""

from __future__ import annotations

import gzip
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import fusiondata
import h200data

from runtime_lab.record import Run
from runtime_lab.results import to_plain
from runtime_lab.store.history import History

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parents[1] / "fixtures"
H200 = FIXTURES / "h200"
GPU = [{"index": 0, "name": "NVIDIA H200", "compute_capability": "9.0"}]


def cli(data_dir: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "runtime_lab", "--data-dir", str(data_dir), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )


def _gz_json(path: Path):
    return json.loads(gzip.decompress(path.read_bytes()))


def streams_trace() -> dict:
    """The Chrome trace of a real streams run on an H200."""
    return _gz_json(H200 / "streams-lab-trace.json.gz")


def _row(document: dict, job_id: str, label: str) -> Run:
    """A run document (the CLI's --json) as history stores it, under a job id and label."""
    kept = ("status", "spec", "env", "device", "result", "error")
    kept += ("created_at", "started_at", "finished_at")
    return Run.from_dict({k: document.get(k) for k in kept} | {"job_id": job_id, "label": label})


def _streams(root: Path) -> Run:
    run = _gz_json(H200 / "streams-run.json.gz")
    trace = root / "traces" / "e4418a3fa92b-streams.json"
    trace.write_text(json.dumps(streams_trace()))
    run["result"]["trace_file"] = str(trace)
    return _row(run, "h200streams01", "streams 4096x4096 float32 cuda (H200)")


def _allocator(root: Path) -> Run:
    run = _gz_json(H200 / "allocator-run.json.gz")
    for snap in run["result"]["snapshots"]:  # real pickles beside the run, as the lab keeps them
        snap["file"] = str(root / "allocator" / Path(snap["file"]).name)
        h200data.snapshot_pickle(Path(snap["file"]))
    return _row(run, "h200alloc0001", "allocator 1024x1024 float32 cuda (H200)")


def _fusion(root: Path) -> Run:
    trace = root / "traces" / "0a1b2c3d4e5f-eager.json"
    events = [{"name": "aten::add", "ph": "X", "ts": 1.0, "dur": 2.5, "args": {"seq": 1}}]
    trace.write_text(json.dumps({"traceEvents": events, "displayTimeUnit": "ms"}))
    spec = {"experiment": "fusion", "shape": [4096, 4096], "dtype": "float32", "device": "cuda"}
    spec["options"] = {"sweep": "256,4096"}
    document = {
        "status": "done",
        "spec": spec,
        "env": {"hostname": "lab-a", "gpus": GPU, "torch": "2.9.0"},
        "device": "cuda:0",
        "result": to_plain(fusiondata.result(trace_file=str(trace))),
        "created_at": 1764000000.25,
        "started_at": 1764000001.0,
        "finished_at": 1764000009.5,
    }
    return _row(document, "fusionjob0001", "fusion 4096x4096 float32 cuda sweep=256,4096")


def source(root: Path, legacy: bool = True) -> list[int]:
    """Fill data dir `root`: the legacy database's runs (every experiment, a failed one, two
    H200 ones whose files are gone) when `legacy`, then H200 streams and allocator runs and a
    fusion run, each with its files on disk. Returns the run ids."""
    root.mkdir(parents=True, exist_ok=True)
    for folder in ("traces", "allocator"):
        (root / folder).mkdir(exist_ok=True)
    if legacy:
        sql = gzip.decompress((FIXTURES / "legacy" / "history-v0.1.sql.gz").read_bytes()).decode()
        with sqlite3.connect(root / "history.sqlite3") as conn:
            conn.executescript(sql)
    history = History(root / "history.sqlite3")
    history.add_many([_fusion(root), _streams(root), _allocator(root)])
    return [row["id"] for row in reversed(history.list())]


def state(root: Path) -> tuple[list, list]:
    """Every stored row, and every file under the data dir but the database's own."""
    with sqlite3.connect(root / "history.sqlite3") as conn:
        rows = conn.execute("SELECT * FROM runs ORDER BY id").fetchall()
    files = sorted(
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and not p.name.startswith("history.sqlite3")
    )
    return rows, files
