"""Each tier's budget in seconds (tests/helpers/budgets.py) is the one docs/testing.md lists, the
end-of-session line names make test's calls only, and an overrun reads as one."""

import re
from pathlib import Path

import budgets

ROOT = Path(__file__).resolve().parents[2]


def _documented() -> dict[str, int]:
    text = (ROOT / "docs" / "testing.md").read_text()
    section = text.split("## Time budgets", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `?(\w+)`? \|[^|]*\| (\d+) \|", section, re.MULTILINE)
    return {tier: int(budget) for tier, budget in rows}


def test_the_docs_list_every_tier_with_its_budget():
    assert _documented() == budgets.BUDGET_S


def test_the_makefiles_three_calls_are_the_three_tiers():
    make = (ROOT / "Makefile").read_text()
    assert "-n auto --durations=25 tests/unit" in make
    assert '-m "not serial" tests/integration' in make and "-m serial tests/integration" in make
    assert budgets.tier_of(["tests/unit"], "") == "unit"
    assert budgets.tier_of(["tests/unit/"], "") == "unit"
    assert budgets.tier_of(["tests/integration"], "not serial") == "integration"
    assert budgets.tier_of(["tests/integration", "tests/e2e", "tests/gpu"], "serial") == "serial"
    for args, expr in ((["tests/unit/test_spec.py"], ""), (["tests/integration"], ""), ([], "")):
        assert budgets.tier_of(args, expr) is None, (args, expr)


def test_an_overrun_is_marked_with_how_far_over_and_the_slowest_files():
    per_file = {"a.py": 5.0, "b.py": 90.0, "c.py": 40.0, "d.py": 1.0}
    line, over = budgets.verdict("unit", budgets.BUDGET_S["unit"] + 12, per_file)
    assert over and line.startswith("TIER BUDGET OVERRUN: unit took")
    assert "12 s over" in line and line.endswith("b.py 90 s, c.py 40 s, a.py 5 s")
    line, over = budgets.verdict("unit", 1.0, per_file)
    assert not over and line.startswith("tier budget: unit took 1 s") and "over" not in line


def test_the_heaviest_files_listed_exist_and_go_first():
    present = {p.name for p in (ROOT / "tests" / "integration").glob("test_*.py")}
    assert set(budgets.HEAVIEST_FIRST) <= present, set(budgets.HEAVIEST_FIRST) - present
    assert len(set(budgets.HEAVIEST_FIRST)) == len(budgets.HEAVIEST_FIRST)
    first, second = budgets.HEAVIEST_FIRST[:2]
    assert budgets.heaviest_first(["test_a.py", second, first]) == [
        len(budgets.HEAVIEST_FIRST),
        1,
        0,
    ]
