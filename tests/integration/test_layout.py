"""The package layout holds: no import cycles, a torch-free server side, one registry, thin pages."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from runtime_lab import registry

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "runtime_lab"
STAGES = ("info", "run", "result", "report")
OPTIONAL_STAGES = ("figures", "glossary", "compare")  # a missing one means the experiment has none


def _modules() -> dict[str, Path]:
    found = {}
    for path in PKG.rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = path
    return found


def _imports(name: str, path: Path, top_level_only: bool = False) -> set[str]:
    """Every module named by an import statement (function-level ones too, unless asked)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else ast.walk(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            found.add(base)
            found |= {f"{base}.{a.name}" for a in node.names}
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    graph = {}
    for name, path in modules.items():
        targets = set()
        for target in _imports(name, path):
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target not in (name, "runtime_lab"):
                targets.add(target)
        graph[name] = targets
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle_counting_function_level_imports():
    graph = _graph()
    assert len(graph) > 50 and sum(map(len, graph.values())) > 150  # the graph is really read
    assert _cycles(graph) == []


def test_cycle_finder_sees_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_server_side_modules_do_not_import_torch():
    names = [
        "ui.shell",
        "ui.form",
        "ui.results",
        "ui.compare",
        "cli.main",
        "compare.comparison",
        "cli.compare",
        "runner.jobs",
        "store.history",
        "store.bundle",
        "store.bundle_check",
        "cli.bundles",
        "registry",
        "spec",
        "report",
        "view.frames",
        "view.charts",
    ]
    for e in registry.NAMES:  # every experiment's server half and what sits between the halves
        names += [f"{e}.info", f"{e}.result"]
        names += [f"{e}.report.{p.stem}" for p in (PKG / e / "report").glob("*.py")]
    present = [n for n in names if (PKG / (n.replace(".", "/") + ".py")).exists()]
    assert len(present) > 60
    code = (
        "import importlib, sys\n"
        f"for name in {present!r}:\n"
        "    importlib.import_module('runtime_lab.' + name)\n"
        "print(sorted(m for m in sys.modules if m == 'torch' or m.startswith('torch.')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_the_check_would_see_torch():
    code = "import runtime_lab.lab.base, sys; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.stdout.strip() == "True"


@pytest.mark.parametrize("name", registry.NAMES)
def test_every_experiment_has_the_same_stages(name):
    for stage in STAGES:
        path = PKG / name / (registry.STAGES[stage].replace(".", "/") + ".py")
        assert path.is_file(), path.relative_to(ROOT)
    info = registry.EXPERIMENTS[name]
    assert info.name == name and info.title and info.summary
    if not info.hidden:
        page = ROOT / "app_pages" / f"{name}.py"
        assert f'ui.experiment_page("{name}")' in page.read_text()
        assert info.intro and info.icon


def test_a_missing_optional_stage_means_none():
    """selftest has no figures and no compare stage: no summary, a comparison of nothing."""
    assert not any((PKG / "selftest" / "report" / f"{s}.py").exists() for s in OPTIONAL_STAGES)
    run = {"id": 1, "status": "done", "spec": {"experiment": "selftest"}, "result": {"pid": 1}}
    assert registry.summary(run) is None
    stage = registry.comparison("selftest")
    assert stage is registry.NoComparison
    assert stage.IGNORED == ()
    assert stage.samples(None) == {} and stage.charts([("a", None), ("b", None)]) == []
    assert registry.comparison("fusion").__name__ == "runtime_lab.fusion.report.compare"
    with pytest.raises(KeyError, match="unknown experiment"):
        registry.comparison("os")


def test_registry_lists_every_experiment_package():
    packages = {p.parent.name for p in PKG.glob("*/info.py")}
    assert packages == set(registry.NAMES)


def test_no_table_keyed_by_experiment_name_outside_the_registry():
    """A dict literal whose keys are experiment names is a second registry."""
    names = set(registry.NAMES)
    for path in [*PKG.rglob("*.py"), *(ROOT / "app_pages").glob("*.py"), ROOT / "app.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Dict):
                keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
                assert len(keys & names) < 2, f"{path.relative_to(ROOT)}:{node.lineno}"


def test_unknown_experiment_is_never_imported():
    with pytest.raises(KeyError, match="unknown experiment"):
        registry.result_from_record("os", {"a": 1})


def test_pages_stay_thin():
    """Modules are split by idea, not by size; pages are thin scripts over ui/."""
    pages = {p.name: len(p.read_text().splitlines()) for p in (ROOT / "app_pages").glob("*.py")}
    assert max(pages.values()) <= 40, pages
