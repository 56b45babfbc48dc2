"""Runs for the compare tests: recorded CPU runs (tests/fixtures/legacy) and an H200 fusion run.

The H200 fusion run is tests/test_fusion_frames.py's CUDA-like result (4096², three modes) with
the environment the H200 recorded for tests/fixtures/h200/streams-run.json.gz."""

from __future__ import annotations

import copy
import gzip
import json
import sqlite3
import tempfile
from pathlib import Path

from runtime_lab.results import to_plain
from runtime_lab.store.history import History

FIXTURES = Path(__file__).parents[1] / "fixtures"
# ids in tests/fixtures/legacy/history-v0.1.sql.gz
CPU_FUSION, CPU_STREAMS, CPU_RECOMPILES, CPU_ALLOCATOR = 1, 2, 3, 4
FAILED_SELFTEST, H200_STREAMS, H200_ALLOCATOR = 5, 6, 7


def legacy_runs() -> dict[int, dict]:
    """Every run of the legacy fixture, by id, as History.get gives them."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "history.sqlite3"
        sql = gzip.decompress((FIXTURES / "legacy" / "history-v0.1.sql.gz").read_bytes())
        with sqlite3.connect(path) as conn:
            conn.executescript(sql.decode())
        history = History(path)
        return {r["id"]: history.get(r["id"]) for r in history.list()}


def h200_env() -> dict:
    run = json.loads(gzip.decompress((FIXTURES / "h200" / "streams-run.json.gz").read_bytes()))
    return run["env"]


def h200_fusion(cpu: dict) -> dict:
    """The CPU fusion run's spec at 4096² on CUDA with the CUDA-like result, run on the H200."""
    from test_fusion_frames import _result

    run = copy.deepcopy({k: v for k, v in cpu.items() if k != "id"})
    run["spec"]["shape"] = [4096, 4096]
    run["spec"]["device"] = "cuda"
    run["spec"]["options"]["modes"] = "eager,inductor,inductor-reduce-overhead"
    run |= {"device": "cuda:0", "env": h200_env(), "result": to_plain(_result())}
    run["label"] = "fusion 4096x4096 float32 cuda (H200)"
    return run


def stored(run: dict) -> dict:
    """A run as History.add takes it: without its old id."""
    return {k: v for k, v in copy.deepcopy(run).items() if k != "id"}
