"""Runs for the compare tests: recorded CPU runs (tests/fixtures/legacy) and an H200 fusion run.

The H200 fusion run is helpers/fusiondata.py's CUDA-like result (4096², three modes) with
the environment the H200 recorded for tests/fixtures/h200/streams-run.json.gz."""

from __future__ import annotations

import copy
import dataclasses
import gzip
import json
import sqlite3
import tempfile
from pathlib import Path

import fusiondata

from runtime_lab.record import Run
from runtime_lab.results import to_plain
from runtime_lab.store.history import History

FIXTURES = Path(__file__).parents[1] / "fixtures"
# ids in tests/fixtures/legacy/history-v0.1.sql.gz
CPU_FUSION, CPU_STREAMS, CPU_RECOMPILES, CPU_ALLOCATOR = 1, 2, 3, 4
FAILED_SELFTEST, H200_STREAMS, H200_ALLOCATOR = 5, 6, 7


def legacy_runs() -> dict[int, Run]:
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


def h200_fusion(cpu: Run) -> Run:
    """The CPU fusion run's spec at 4096² on CUDA with the CUDA-like result, run on the H200."""
    spec = copy.deepcopy(cpu.spec)
    spec["shape"] = [4096, 4096]
    spec["device"] = "cuda"
    spec["options"]["modes"] = "eager,inductor,inductor-reduce-overhead"
    return dataclasses.replace(
        stored(cpu),
        spec=spec,
        device="cuda:0",
        env=h200_env(),
        result=to_plain(fusiondata.result()),
        label="fusion 4096x4096 float32 cuda (H200)",
    )


def stored(run: Run) -> Run:
    """A run as History.add takes it: a copy without its old id."""
    return numbered(run, None)


def numbered(run: Run, run_id: int | None) -> Run:
    """A deep copy of a run under another id (a second run to compare it with)."""
    return dataclasses.replace(copy.deepcopy(run), id=run_id)


def with_workload(run: Run, workload: str, params: str = "") -> Run:
    """A stored copy of a run whose spec names another workload (its figures kept as they are)."""
    copied = stored(run)
    copied.spec["options"] |= {"workload": workload, "params": params}
    return dataclasses.replace(copied, label=f"{copied.label} {workload}")


def fusion_mode_pair(history: History) -> tuple[int, int]:
    """Two CUDA-like fusion runs added to `history` that differ in mode only: eager + inductor,
    and eager + max-autotune (its own launch config): their ids, for a kernel diff."""
    cpu = legacy_runs()[CPU_FUSION]
    eager, inductor, tuned = fusiondata.with_resources().modes
    runs = []
    for modes in ((eager, inductor), (eager, tuned)):
        result = dataclasses.replace(fusiondata.with_resources(), modes=modes)
        run = stored(cpu)
        run.spec["options"]["modes"] = ",".join(m.mode for m in modes)
        runs.append(history.add(dataclasses.replace(run, result=to_plain(result))))
    return runs[0], runs[1]
