"""Each tier's wall-time budget in seconds, for `make test`'s three pytest calls on a quiet 2-core
machine, and the line printed at the end of each call (tests/conftest.py): its wall time against
its budget and its slowest files. docs/testing.md lists the same figures (tests/unit/
test_tier_budget.py keeps the two equal). An overrun is printed, clearly marked, not failed: CI
machines run up to 2x slower than the one the budgets were measured on."""

from __future__ import annotations

from pathlib import PurePosixPath

BUDGET_S = {"unit": 40, "integration": 440, "serial": 270}

# The integration tier's heaviest files (module fixtures that start workers and compile, runs
# through the CLI), heaviest first: tests/conftest.py puts them at the head of the collection and
# make test runs xdist with --no-loadscope-reorder, so the two workers take these first and
# finish together on the short files (xdist's own order, by number of tests, puts the few-test
# heavy files last, where one can end alone: 8-18 s of an idle worker in the runs measured).
# Ordered by summed time (setup + call + teardown) measured on 2 cores (2026-12-06, after the
# served zygote and the shared ceiling: docs/testing.md).
HEAVIEST_FIRST = (
    "test_workloads_fusion.py",
    "test_user_workloads_worker.py",
    "test_fusion_worker.py",
    "test_workloads_everywhere.py",
    "test_bundle.py",
    "test_recompiles_worker.py",
    "test_zygote.py",
    "test_chart_export.py",
    "test_process_worker.py",
    "test_ray_jobs.py",
    "test_reliability_inputs.py",
    "test_allocator_workload.py",
    "test_ray_pool.py",
    "test_pool_page.py",
    "test_compile_evidence.py",
    "test_allocator_worker.py",
    "test_pool.py",
    "test_fusion_wrong_answer.py",
    "test_benchmarks.py",
    "test_training_pass.py",
    "test_cli_paths.py",
    "test_recompiles_whatif_worker.py",
    "test_recompiles_workloads.py",
    "test_worker.py",
)

# the selection of each of make test's calls: (paths, -m expression); None: any paths
CALLS = {
    "unit": (("tests/unit",), ""),
    "integration": (("tests/integration",), "not serial"),
    "serial": (None, "serial"),
}


def heaviest_first(names: list[str]) -> list[int]:
    """Each file's place in the run: the heaviest files first, in HEAVIEST_FIRST's order, then
    the rest as collected (the key for a stable sort of the items by their file's name)."""
    rank = {name: i for i, name in enumerate(HEAVIEST_FIRST)}
    return [rank.get(name, len(HEAVIEST_FIRST)) for name in names]


def tier_of(args: list[str], markexpr: str) -> str | None:
    """Which of make test's calls this selection is; None for any other (one file, -k, …)."""
    paths = tuple(str(PurePosixPath(a)) for a in args)
    for tier, (wanted, expr) in CALLS.items():
        if markexpr.strip() == expr and (wanted is None or paths == wanted):
            return tier
    return None


def verdict(tier: str, took_s: float, per_file: dict[str, float], top: int = 3) -> tuple[str, bool]:
    """The line for the log, and whether the tier ran over its budget."""
    budget = BUDGET_S[tier]
    over = took_s > budget
    slowest = sorted(per_file.items(), key=lambda kv: -kv[1])[:top]
    named = ", ".join(f"{path} {s:.0f} s" for path, s in slowest) or "none"
    head = "TIER BUDGET OVERRUN" if over else "tier budget"
    line = (
        f"{head}: {tier} took {took_s:.0f} s of its {budget} s ({100 * took_s / budget:.0f}%)"
        f"{f', {took_s - budget:.0f} s over' if over else ''}; "
        f"slowest files (setup + call + teardown, summed): {named}"
    )
    return line, over
