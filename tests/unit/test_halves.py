"""Every experiment shows its two halves: run/ (the worker side, under torch) and report/ (the
server side, no torch), with info and result between; only the worker side imports torch."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from runtime_lab import registry

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "runtime_lab"
BETWEEN = {"info", "result"}  # what both halves read: the catalog entry and the typed result
# torch-free modules at an experiment's top that both halves import (named here, so a new one
# is a decision, not an accident)
SHARED = {("recompiles", "cudagraph_calls")}
# prefixes that once kept names apart in a flat package: a folder says which half now
SUFFIXED = ("run_", "report_", "charts_", "frames_")


def _name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def _top_level_imports(path: Path) -> set[str]:
    found = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return found


def _all_imports(path: Path) -> set[str]:
    """Every absolute module an import names, function-level ones and `from x import y` as x.y."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
    return found


def worker_side(name: str) -> bool:
    """lab/, an experiment's run/, a workload's op (and the ops they share), the selftest's run."""
    parts = name.split(".")
    if parts[1] == "lab":
        return True
    if parts[1] == "workloads":
        return parts[-1] in ("op", "ops")
    return parts[1] in registry.NAMES and len(parts) > 2 and parts[2] == "run"


def _torch_at_top(path: Path) -> bool:
    return any(m == "torch" or m.startswith("torch.") for m in _top_level_imports(path))


def test_no_module_outside_the_worker_side_imports_torch_at_top_level():
    importing = {_name(p) for p in PKG.rglob("*.py") if _torch_at_top(p)}
    assert "runtime_lab.fusion.run.experiment" in importing  # the scan really reads imports
    assert sorted(n for n in importing if not worker_side(n)) == []


def test_the_worker_side_rule_names_what_it_means():
    assert worker_side("runtime_lab.lab.timing")
    assert worker_side("runtime_lab.allocator.run.scenarios")
    assert worker_side("runtime_lab.workloads.rms_norm.op")
    assert not worker_side("runtime_lab.allocator.report.frames")
    assert not worker_side("runtime_lab.fusion.result")
    assert not worker_side("runtime_lab.workloads.rms_norm.info")
    assert not worker_side("runtime_lab.runner.worker")


@pytest.mark.parametrize("name", registry.NAMES)
def test_every_experiment_has_the_same_two_halves(name):
    package = PKG / name
    for half, entry in (("run", "experiment"), ("report", "build")):
        assert (package / half / "__init__.py").is_file(), f"{name}/{half}/__init__.py"
        assert (package / half / f"{entry}.py").is_file(), f"{name}/{half}/{entry}.py"
    top = {p.stem for p in package.glob("*.py")} - {"__init__"}
    assert top >= BETWEEN
    assert top - BETWEEN == {m for e, m in SHARED if e == name}
    folders = {p.name for p in package.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == {"run", "report"}


@pytest.mark.parametrize("name", registry.NAMES)
def test_no_module_name_carries_a_half_as_a_prefix(name):
    names = [p.stem for p in (PKG / name).rglob("*.py")]
    assert [n for n in names if n.startswith(SUFFIXED)] == []


@pytest.mark.parametrize("name", registry.NAMES)
def test_the_server_half_never_imports_the_worker_half(name):
    worker = f"runtime_lab.{name}.run"
    for path in [*(PKG / name / "report").glob("*.py"), *(PKG / name).glob("*.py")]:
        crossing = sorted(
            m for m in _all_imports(path) if m == worker or m.startswith(worker + ".")
        )
        assert crossing == [], f"{path.relative_to(ROOT)} imports {crossing}"


def test_shared_modules_are_used_by_both_halves_and_free_of_torch():
    for experiment, module in SHARED:
        path = PKG / experiment / f"{module}.py"
        assert not _torch_at_top(path)
        full = f"runtime_lab.{experiment}.{module}"
        users = {
            half
            for half in ("run", "report")
            for p in (PKG / experiment / half).glob("*.py")
            if full in _all_imports(p)
        }
        assert users == {"run", "report"}, (module, users)
