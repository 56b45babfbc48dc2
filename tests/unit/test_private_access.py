"""No code in runtime_lab reaches into another object's underscore members, nor imports another
module's underscore names (issue #25)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "runtime_lab"
OWN = ("self", "cls")


def _external_modules(tree: ast.Module) -> set[str]:
    """Names bound by `import x` / `import x.y as z` of a module outside runtime_lab: a third
    party's or the standard library's module, whose underscore attributes (torch._dynamo,
    os._exit) are that library's API to us, not another class's private state."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] != "runtime_lab":
                    found.add(alias.asname or alias.name.split(".")[0])
    return found


def _functions(tree: ast.Module) -> set[str]:
    """Functions defined in the module: attributes this code sets on its own function objects
    (a wrapper's marker) are not another class's members."""
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }


def _root(node: ast.expr) -> ast.expr:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node


def private_access(source: str) -> list[tuple[int, str]]:
    """(line, expression) of each `obj._name` whose `obj` is not self or cls (itself: not
    `self.other._name`), nor a module imported from outside runtime_lab, nor a function of
    this module."""
    tree = ast.parse(source)
    allowed = _external_modules(tree) | _functions(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        name = node.attr
        if not name.startswith("_") or (name.startswith("__") and name.endswith("__")):
            continue
        base = node.value
        if isinstance(base, ast.Name) and base.id in OWN:
            continue
        root = _root(base)
        if isinstance(root, ast.Name) and root.id in allowed and root.id not in OWN:
            continue
        found.append((node.lineno, ast.unparse(node)))
    return found


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_imports(source: str) -> list[tuple[int, str]]:
    """(line, statement) of each `from runtime_lab.x import _y` (or a relative `from .x import
    _y`): another module's underscore name is its own business, whatever it is bound to here.
    A library's (`from torch._logging import _internal`) is that library's API to us."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ImportFrom):
            continue
        ours = node.level > 0 or (node.module or "").split(".")[0] == "runtime_lab"
        if ours and any(_private(alias.name) for alias in node.names):
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_the_check_finds_what_it_should():
    source = (
        "import torch\n"
        "from runtime_lab.runner import worker\n"
        "def f(manager, job):\n"
        "    manager._jobs\n"  # another object's member
        "    self.manager._lock\n"  # through self, still another object's
        "    worker._start_up()\n"  # a runtime_lab module's private function
        "    job.spec._cache\n"
        "    torch._dynamo.reset()\n"  # a third party's module: allowed
        "    self._lock, cls._made, obj.__class__\n"  # own members, dunders: allowed
        "    f._marked = True\n"  # an attribute on this module's own function: allowed
    )
    assert sorted(line for line, _ in private_access(source)) == [4, 5, 6, 7]


def test_no_module_reaches_into_another_objects_underscore_members():
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {text}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line, text in private_access(path.read_text(encoding="utf-8"))
    ]
    assert not found, "\n".join(found)


def test_the_import_check_finds_what_it_should():
    source = (
        "from runtime_lab.runner.rayactor import RayWorker, _summary\n"  # another module's
        "from runtime_lab.fusion.charts import _layers as layers\n"  # renamed: still its
        "from .charts import _ceiling\n"  # relative: ours too
        "from runtime_lab.runner.worker_progress import send as _send\n"  # public, bound private
        "from runtime_lab import __version__\n"  # a dunder: public by convention
        "from torch._logging import _internal\n"  # a library's: allowed
        "import runtime_lab.runner.jobs\n"
    )
    assert [line for line, _ in private_imports(source)] == [1, 2, 3]


def test_no_module_imports_another_modules_underscore_names():
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {text}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line, text in private_imports(path.read_text(encoding="utf-8"))
    ]
    assert not found, "\n".join(found)


def test_the_manager_offers_every_member_a_lane_asks_for(tmp_path):
    """runner/lane.py's LaneHost, the one way a lane talks to its JobManager."""
    from runtime_lab.runner.jobs import JobManager
    from runtime_lab.runner.lane import LaneHost

    asked = {n for n in vars(LaneHost) if not n.startswith("_")} | set(LaneHost.__annotations__)
    assert asked >= {"lock", "timeout_s", "stopped", "update", "settle", "fail_lane"}
    manager = JobManager(data_dir=tmp_path, start=False, plans=[])
    try:
        assert all(hasattr(manager, name) for name in asked), asked - set(dir(manager))
    finally:
        manager.close()
