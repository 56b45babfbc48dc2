"""benchmarks/ and scripts/: recipes listed, a CPU recipe end to end, no path patch or private import."""

from __future__ import annotations

import ast
import importlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarks.__main__ import resolve_device
from benchmarks.recipes import RECIPES
from runtime_lab.env import gpu_likely

REPO = Path(__file__).resolve().parents[2]
PROJECT = ("runtime_lab", "benchmarks", "scripts")
RECIPE_NAMES = {
    "fusion-bench",
    "rerun-latency",
    "what-if",
    "worker-start",
    "catalog",
    "page-defaults",
    "measurement",
    "rss",
    "pool",
}


def benchmarks(*args: str, timeout_s: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "benchmarks", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout_s,
        stdin=subprocess.DEVNULL,
    )


def test_list_names_every_recipe_with_its_settings():
    done = benchmarks("--list")
    assert done.returncode == 0, done.stderr
    assert set(RECIPES) == RECIPE_NAMES
    listed = {line.split()[0] for line in done.stdout.splitlines() if not line.startswith(" ")}
    assert listed == RECIPE_NAMES
    assert "--set attempts=3" in done.stdout  # each recipe's settings with their defaults


@pytest.mark.skipif(gpu_likely(), reason="this machine may have a GPU")
def test_a_cuda_recipe_and_a_bad_setting_exit_2_with_one_line():
    for args, said in (
        (("fusion-bench",), "benchmarks: fusion-bench needs CUDA, and this machine has no GPU"),
        (("pool", "--device", "cuda"), "benchmarks: pool needs CUDA, and this machine has no GPU"),
        (("rss", "--device", "cuda"), "benchmarks: rss runs on cpu only, not cuda"),
        (("rss", "--set", "loops=3"), "benchmarks: error: rss has no setting 'loops'"),
        (("rss", "--set", "runs"), "benchmarks: error: --set runs: say NAME=VALUE"),
        (("nothing",), "benchmarks: error: name a recipe"),
    ):
        done = benchmarks(*args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert done.stdout == ""
        assert len(done.stderr.strip().splitlines()) == 1 and said in done.stderr, done.stderr


def test_auto_prefers_cuda_only_where_a_recipe_and_the_machine_allow_it():
    cpu_only, either = RECIPES["rss"], RECIPES["rerun-latency"]
    assert resolve_device(cpu_only, "auto") == ("cpu", "")
    assert resolve_device(either, "cpu") == ("cpu", "")
    if not gpu_likely():
        assert resolve_device(either, "auto") == ("cpu", "")


def test_the_cpu_recipe_writes_real_figures(tmp_path):
    """The CI smoke: rerun-latency on the CPU, small, through a real worker."""
    settings = ("shape=64x64", "modes=eager", "attempts=2")
    args = [arg for s in settings for arg in ("--set", s)]
    done = benchmarks(
        "rerun-latency", "--device", "cpu", "--out", str(tmp_path), *args, timeout_s=240
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "== the same spec, 2 times" in done.stdout  # the table
    doc = json.loads((tmp_path / "rerun-latency.json").read_text())
    assert (doc["recipe"], doc["device"], doc["problems"]) == ("rerun-latency", "cpu", [])
    assert doc["settings"] == {"shape": "64x64", "modes": "eager", "attempts": "2"}
    figures = doc["figures"]
    assert figures["first_total_s"] > 0 and figures["warm_total_s"] > 0
    assert 0 < figures["warm_report_s"] < figures["warm_total_s"]
    assert figures["steady_state_ms"]["eager"] > 0
    assert [run["state"] for run in doc["runs"]] == ["done", "done"]
    assert all(run["summary"]["steady_state_ms"]["eager"] > 0 for run in doc["runs"])
    assert all(run["wall_s"] >= run["run_s"] > 0 for run in doc["runs"])
    env = doc["env"]  # the worker's fingerprint: where the figures came from
    assert env["torch"] and env["python"] and env["host_cores"] >= 1
    assert doc["wall_s"] > sum(run["wall_s"] for run in doc["runs"]) * 0.99


def test_the_catalog_recipe_runs_the_workloads_asked_for(tmp_path):
    settings = ("workloads=softmax,rope", "modes=eager", "dtype=float32")
    args = [arg for s in settings for arg in ("--set", s)]
    done = benchmarks("catalog", "--device", "cpu", "--out", str(tmp_path), *args, timeout_s=240)
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads((tmp_path / "catalog.json").read_text())["figures"]
    assert list(figures) == ["softmax", "rope"]
    rope = figures["rope"]
    assert (rope["shape"], rope["bound"], rope["tolerance"]) == ("256x8x64", "memory", True)
    assert rope["eager_ms"] > 0 and rope["eager_over_ideal_bytes"] > 1  # the cat and products
    # each beside a clean process (fresh interpreter, plain torch, torch.utils.benchmark on a
    # CPU), the modes the lab ran only: eager here, so nothing compiles there
    assert rope["clean_clock"] == "torch.utils.benchmark" and rope["clean_eager_ms"] > 0
    # the same clock on both sides: the lab's own torch.utils.benchmark figure, not its
    # harness's (which flushes the caches between calls)
    assert rope["lab_clock_compared"] == "torch.utils.benchmark"
    lab_timer = rope["lab_timer_ms"]["eager"]
    assert rope["lab_vs_clean"]["eager"] == lab_timer / rope["clean_eager_ms"]
    assert rope["lab_vs_clean"]["inductor"] is None and rope["clean_error"] is None


def sources() -> list[Path]:
    return sorted([*REPO.glob("benchmarks/**/*.py"), *REPO.glob("scripts/**/*.py")])


def project_imports(path: Path) -> list[tuple[int, str, str | None]]:
    """(line, module, name) of each import from the project's packages in a file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] in PROJECT:
                found += [(node.lineno, node.module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [
                (node.lineno, a.name, None) for a in node.names if a.name.split(".")[0] in PROJECT
            ]
    return found


def test_benchmarks_and_scripts_patch_no_path_and_import_no_private_name():
    assert len(sources()) >= 20
    problems = []
    for path in sources():
        text = path.read_text()
        where = path.relative_to(REPO)
        if "sys.path" in text:
            problems.append(f"{where}: touches sys.path (run it as a module from the repo root)")
        for line, module, name in project_imports(path):
            parts = [*module.split("."), *([name] if name else [])]
            if any(part.startswith("_") and part != "__main__" for part in parts):
                problems.append(f"{where}:{line}: imports a private name {'.'.join(parts)}")
    assert not problems, "\n".join(problems)


def test_every_project_name_they_import_exists():
    """Evidence scripts run on a GPU only: a rename elsewhere must fail here, not on the H200."""
    missing = []
    for path in sources():
        for line, module, name in project_imports(path):
            target = importlib.import_module(module)
            if name is not None and not hasattr(target, name):
                try:  # `from package import module`
                    importlib.import_module(f"{module}.{name}")
                except ImportError:
                    missing.append(f"{path.relative_to(REPO)}:{line}: {module}.{name}")
    assert not missing, "\n".join(missing)


def test_a_run_ended_by_sigterm_removes_its_temporary_lab(tmp_path):
    """Issue 38: `timeout` (SIGTERM) left the lab's folder and its workers behind."""
    args = ["rerun-latency", "--device", "cpu", "--set", "shape=64x64", "--set", "attempts=1"]
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "benchmarks", *args],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob("benchmarks-*/lab")) and time.monotonic() < deadline:
        time.sleep(0.05)  # the lab's data dir: its job manager and worker are starting
    assert list(tmp_path.glob("benchmarks-*")), "the lab never started"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM and "Traceback" not in err, err[-2000:]
    assert list(tmp_path.glob("benchmarks-*")) == []
