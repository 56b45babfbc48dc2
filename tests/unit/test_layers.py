"""Views and the runner stay apart: what both need (a run's timeline marks) lives in the core."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "runtime_lab"
# a package: the packages none of its modules may import, at any level (function-level too)
APART = {
    "view": ("runner", "ui", "cli"),  # views draw stored runs: no worker, no page, no command
    "runner": ("view", "ui", "cli"),  # the runner queues and runs jobs: it draws nothing
}


def imported(source: str, package: str) -> set[str]:
    """The runtime_lab packages that a module directly in runtime_lab/<package>/ imports."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ["runtime_lab", package][: 3 - node.level] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            # `from runtime_lab import view` names the package in the alias
            names = [module, *(f"{module}.{alias.name}" for alias in node.names)]
        else:
            continue
        found |= {n.split(".")[1] for n in names if n.startswith("runtime_lab.")}
    return found


def test_the_check_sees_each_way_of_importing_a_package():
    source = (
        "import runtime_lab.runner.jobs\n"
        "from runtime_lab.ui import shell\n"
        "from runtime_lab import cli, timeline\n"
        "def f():\n"
        "    from ..store import history\n"  # function-level and relative: still an import
        "    from . import frames\n"
        "import pandas\n"
    )
    assert imported(source, "view") == {"runner", "ui", "cli", "timeline", "store", "view"}


@pytest.mark.parametrize("package", sorted(APART))
def test_a_package_imports_none_it_must_stay_apart_from(package):
    found = [
        f"{path.relative_to(PACKAGE.parent)} imports runtime_lab.{name}"
        for path in sorted((PACKAGE / package).rglob("*.py"))
        for name in sorted(imported(path.read_text(encoding="utf-8"), package))
        if name in APART[package]
    ]
    assert not found, "\n".join(found)
