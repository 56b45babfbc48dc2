"""Issue 41 through the CLI: a compiled mode whose answer is wrong is timed and named in the early
and the final headline; one whose output is NaN is not timed, and says why in one line."""

import json
from pathlib import Path

import pytest

from runtime_lab.workloads import registry
from tests.helpers.bundledata import cli

FILE = str(
    Path(__file__).resolve().parents[1] / "fixtures" / "user_workloads" / "wrong_compiled.py"
)
FAST = ["--device", "cpu", "--shape", "64x64", "--warmup", "1", "--repeat", "3"]
FAST += ["--compile-latency", "false", "--compile-trace", "false"]


@pytest.fixture(autouse=True)
def clean_registry():
    yield
    registry.clear_user()


def _run(tmp_path: Path, workload: str, modes: str) -> tuple[object, dict]:
    out = tmp_path / "run.json"
    args = ["--workloads", FILE, "run", "fusion", "--workload", workload, "--modes", modes]
    done = cli(tmp_path / "data", *args, *FAST, "--json", str(out))
    assert done.returncode == 0, done.stderr
    return done, json.loads(out.read_text())


def test_a_wrong_compiled_answer_is_timed_and_named_in_the_headline(tmp_path):
    done, run = _run(tmp_path, "gated_residual", "eager,inductor")
    modes = {m["mode"]: m for m in run["result"]["modes"]}
    wrong = modes["inductor"]
    assert wrong["ran"] and wrong["tolerance_passed"] is False and wrong["not_timed"] is None
    assert len(wrong["timing"]["device_ms"] or wrong["timing"]["host_ms"]) == 3  # timed
    assert wrong["tolerance_rule"] in ("float64 bound", "no worse than eager")
    assert wrong["max_abs_diff_fp64"] > wrong["allowed_err_fp64"] > 0
    assert (
        modes["eager"]["tolerance_passed"] and modes["eager"]["tolerance_rule"] == "float64 bound"
    )
    assert run["summary"]["outside_tolerance"] == ["inductor"]
    said = (
        f"inductor is outside tolerance against float64 (max err "
        f"{wrong['max_abs_diff_fp64']:.3g} > allowed {wrong['allowed_err_fp64']:.3g}): its speed "
        "is of a wrong answer"
    )
    headline = done.stdout.splitlines()[0]
    assert said in headline and "vs eager" in headline, headline
    early = next(line for line in done.stderr.splitlines() if line.startswith("timing done"))
    assert said in early
    assert "Wrong answer: inductor outside tolerance against float64" in done.stderr
    # the whole report says its verdict under the headline, as the early one did
    assert done.stdout.splitlines()[1].startswith("  Wrong answer: inductor outside tolerance")
    assert f"inductor FAILED '{wrong['tolerance_rule']}'" in done.stdout  # the note: its rule


def test_a_nan_output_is_not_timed_and_says_why_in_one_line(tmp_path):
    done, run = _run(tmp_path, "gated_ratio", "eager,dynamo-eager")
    modes = {m["mode"]: m for m in run["result"]["modes"]}
    nan = modes["dynamo-eager"]
    assert not nan["ran"] and nan["timing"] is None and nan["tolerance_passed"] is False
    reason = "4,096 of 4,096 output values are NaN or infinite where float64's are finite"
    assert nan["not_timed"] == reason and nan["tolerance_rule"] == "finite output"
    assert f"dynamo-eager not timed: {reason}" in done.stdout.splitlines()[0]
    assert run["summary"]["not_timed"] == {"dynamo-eager": reason}
    assert modes["eager"]["ran"] and modes["eager"]["tolerance_passed"]
