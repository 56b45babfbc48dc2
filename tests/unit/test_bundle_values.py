"""The bundle checks of issue 26.3 at their limits: what a reader uses is refused one step past
each limit and taken at it, and every recorded run of every experiment passes (the refusals
themselves, through the CLI, are tests/integration/test_bundle_bad.py's matrix)."""

from __future__ import annotations

import copy
import gzip
import json
import time
from pathlib import Path

import pytest

from runtime_lab.store import values
from runtime_lab.store.bundle_check import BundleError, check_run

FIXTURES = Path(__file__).parents[1] / "fixtures"


def _legacy() -> list[dict]:
    """The legacy bundle's runs: every experiment, a failed run with a multi-line error."""
    doc = json.loads(gzip.decompress((FIXTURES / "legacy" / "bundle-78431cf.json.gz").read_bytes()))
    return doc["runs"]


def _allocator() -> dict:
    """The H200 allocator run (667 trace points) as a bundle's run."""
    (run,) = [r for r in _legacy() if r["experiment"] == "allocator" and r["env"].get("gpus")]
    return copy.deepcopy(run)


def _refused(run: dict) -> str:
    with pytest.raises(BundleError) as refused:
        check_run(1, run)
    return str(refused.value)


def test_every_recorded_run_passes():
    runs = _legacy()
    assert {r["experiment"] for r in runs} == {
        "selftest",
        "streams",
        "fusion",
        "recompiles",
        "allocator",
    }
    assert any("\n" in (r["error"] or "") for r in runs)  # a traceback keeps its lines
    for run in runs:
        check_run(1, run)


def test_an_allocator_trace_past_the_list_limit_is_refused():
    run = _allocator()
    points = run["result"]["trace"]
    run["result"]["trace"] = (points * 31)[: values.MAX_ITEMS]
    check_run(1, run)  # at the limit: taken
    run["result"]["trace"].append(points[-1])
    assert _refused(run) == (
        "run 1: result.trace: a list of 20,001 items; a list holds at most 20,000"
    )


@pytest.mark.parametrize(
    ("field", "taken", "refused"),
    [
        ("created_at", values.EARLIEST, values.EARLIEST - 1),
        ("finished_at", "soon", "in two days"),
    ],
)
def test_times_at_the_edges_of_the_range(field, taken, refused):
    run = _allocator()
    now = time.time()
    stamps = {"soon": now + 3600, "in two days": now + 2 * 86_400}
    run[field] = stamps.get(taken, taken)
    if field == "finished_at":
        run["started_at"] = run["created_at"]
    check_run(1, run)
    run[field] = stamps.get(refused, refused)
    assert _refused(run).startswith(f"run 1: {field}: ")
    assert "is not a time between 2020-01-01 and " in _refused(run)


def test_the_largest_exact_integer_and_the_longest_line_are_taken():
    run = _allocator()
    run["env"]["host_ram_bytes"] = 2**53
    run["label"] = "x" * values.MAX_LINE
    run["error"] = "line one\n\tline two"
    check_run(1, run)
    run["env"]["host_ram_bytes"] = 2**53 + 1
    assert "env.host_ram_bytes: 9007199254740993 is beyond ±2**53" in _refused(run)


def test_a_tab_is_a_control_character_in_a_label_but_not_in_an_error():
    run = _allocator()
    run["error"] = "a\tb"
    check_run(1, run)
    run["label"] = "a\tb"
    assert _refused(run) == (
        "run 1: label: holds control character U+0009 at character 2; text holds no control "
        "characters (it is shown on one line)"
    )


def test_a_c1_control_and_delete_are_refused_too():
    run = _allocator()
    for char, code in (("\x9b", "U+009B"), ("\x7f", "U+007F")):  # CSI, DEL
        run["label"] = f"a{char}"
        assert f"holds control character {code} at character 2" in _refused(run)


def test_an_option_of_another_version_may_be_any_plain_value_but_not_a_list():
    run = _allocator()
    run["spec"]["options"]["from_the_future"] = 3
    check_run(1, run)
    run["spec"]["options"]["from_the_future"] = [3]
    assert _refused(run) == (
        "run 1: spec.options.from_the_future: must be a plain value, got a list"
    )


def test_an_option_must_have_its_kind_of_value():
    run = _allocator()
    run["spec"]["options"]["alloc_ab"] = True  # a bool option, absent from this older run
    check_run(1, run)
    run["spec"]["options"]["alloc_ab"] = "yes"
    assert _refused(run) == "run 1: spec.options.alloc_ab: must be true or false, got a string"
    run["spec"]["options"] |= {"alloc_ab": False, "rounds": 5.5}
    assert _refused(run) == "run 1: spec.options.rounds: must be a whole number, got 5.5"
