"""`python -m runtime_lab compare` as a user runs it: a subprocess on a history with real runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from comparedata import CPU_FUSION, CPU_STREAMS, h200_fusion, legacy_runs, stored, with_workload

from runtime_lab.store.history import History

ROOT = Path(__file__).resolve().parents[2]


def cli(*args, data_dir):
    return subprocess.run(
        [sys.executable, "-m", "runtime_lab", "--data-dir", str(data_dir), "compare", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


@pytest.fixture
def ids(data_dir):
    """A CPU fusion run, the H200 one, and a CPU streams run, in this test's history."""
    data_dir.mkdir(parents=True, exist_ok=True)
    history = History(data_dir / "history.sqlite3")
    runs = legacy_runs()
    cpu = history.add(stored(runs[CPU_FUSION]))
    gpu = history.add(h200_fusion(runs[CPU_FUSION]))
    streams = history.add(stored(runs[CPU_STREAMS]))
    return cpu, gpu, streams


def test_compare_prints_differences_then_figures_then_the_headline(ids, data_dir, tmp_path):
    cpu, gpu, _ = ids
    out = tmp_path / "compare.json"
    done = cli(str(cpu), str(gpu), "--json", str(out), data_dir=data_dir)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()

    def first(text):
        return next(i for i, line in enumerate(lines) if text in line)

    assert first("Spec and environment") < first("Key figures") < len(lines) - 1
    gpu_row = lines[first("  environment  GPU")].split()
    assert gpu_row[2:] == ["CPU", "NVIDIA", "H200"]
    assert not any(line.split()[:2] == ["spec", "dtype"] for line in lines)  # same in both
    eager = lines[first("eager steady-state time")]
    assert "16.3× slower" in eager and eager.rstrip().endswith("beyond noise")
    assert "no spread recorded" in lines[first("cold compile")]
    document = json.loads(out.read_text())
    assert lines[-1] == document["headline"]
    assert document["headline"].startswith(f"measured speed-up (eager ÷ compiled) 0.46× in #{cpu}")
    assert (
        f"Biggest change: inductor achieved bandwidth: 102× higher (better) in #{gpu}"
        in (document["headline"])
    )
    assert document["runs"] == [f"#{cpu}", f"#{gpu}"]
    row = next(
        f
        for f in document["figures"]
        if f["key"] == "steady_state_ms.eager" and f["run"] == f"#{gpu}"
    )
    assert row["verdict"] == "beyond noise" and row["samples"] == 5 and row["q1"] == 3.0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["999", "1"], "no run #999 in history"),
        (["1"], "at least 2"),
        (["1", "2", "3", "4", "5", "6", "7"], "at most 6"),
        (["1", "3"], "one experiment only (#1 is fusion, #3 is streams)"),
        (["1", "x"], "whole numbers"),
        ([], "required: ID"),
    ],
)
def test_bad_ids_exit_2_with_one_line(ids, data_dir, args, message):
    assert ids == (1, 2, 3)
    done = cli(*args, data_dir=data_dir)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and message in done.stderr, done.stderr
    assert done.stdout == ""


def test_compare_reads_the_data_dir_it_is_given(ids, data_dir, tmp_path):
    done = cli("1", "2", data_dir=tmp_path / "elsewhere")
    assert done.returncode == 2 and "no run #1, #2 in history" in done.stderr


def test_runs_of_different_workloads_say_so_on_the_second_line(ids, data_dir, tmp_path):
    cpu, _, _ = ids
    history = History(data_dir / "history.sqlite3")
    other = history.add(with_workload(legacy_runs()[CPU_FUSION], "rms_norm"))
    out = tmp_path / "compare.json"
    done = cli(str(cpu), str(other), "--json", str(out), data_dir=data_dir)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"Comparing fusion runs #{cpu}, #{other}")
    assert lines[1].startswith(
        f"WARNING: Different workloads: #{cpu} ran pointwise, #{other} ran rms_norm."
    )
    assert json.loads(out.read_text())["workloads"] == lines[1].removeprefix("WARNING: ")
    # one workload, other parameters: said too; the same workload: nothing said
    wide = history.add(with_workload(legacy_runs()[CPU_FUSION], "swiglu_mlp", "intermediate=64"))
    narrow = history.add(with_workload(legacy_runs()[CPU_FUSION], "swiglu_mlp", "intermediate=32"))
    said = cli(str(wide), str(narrow), data_dir=data_dir).stdout.splitlines()[1]
    assert said == (
        f"WARNING: Same workload (swiglu_mlp), different parameters: #{wide} intermediate=64, "
        f"#{narrow} intermediate=32."
    )
    same = history.add(with_workload(legacy_runs()[CPU_FUSION], "pointwise"))
    assert cli(str(cpu), str(same), data_dir=data_dir).stdout.splitlines()[1] == ""
