"""Streams' headline answers in plain words, one name for its error figure, plain numbers, and a
box whose colour matches its doubts: the H200 run, a CPU run, and orderings made by hand."""

import dataclasses
import gzip
import json
from pathlib import Path

import pytest

from runtime_lab import registry
from runtime_lab.glossary import registry as glossary
from runtime_lab.report import CONTENDED
from runtime_lab.results import Timing, to_plain
from runtime_lab.streams.report import build as report
from runtime_lab.streams.report.headline import error_text
from runtime_lab.streams.result import StreamsResult, VariantResult

H200_RUN = Path(__file__).parents[1] / "fixtures" / "h200" / "streams-run.json.gz"
ERROR = "max |side − reference|"
OLD_NAMES = ("max_abs_diff", "max |Δ|", "worst |diff|", "worst |Δ|", "max |diff|")


@pytest.fixture
def h200_run():
    run = json.loads(gzip.decompress(H200_RUN.read_bytes()))
    run["result"]["trace_file"] = None  # the H200's path: not on this machine
    return run


def _cpu_result(samples=(25.0,) * 20, others=None, diff=0.0, passed=True) -> StreamsResult:
    """A CPU run of the seed's matmul: the one check, then the host clock's timing."""
    timing = Timing("x @ y (cpu)", "host-wall", (), samples, 26.0, 10, 20, True, others, 47.0)
    return StreamsResult(
        "cpu", False, diff, passed, 1.3e-6, 1e-5, (1024, 1024), (), (timing,) if passed else (),
        "CUDA streams and events need a GPU.", workload="matmul",
    )  # fmt: skip


def _run(result: StreamsResult) -> dict:
    spec = {"experiment": "streams", "shape": [1024, 1024], "dtype": "float32", "device": "cpu"}
    return {"status": "done", "spec": spec, "result": to_plain(result)}


def _variant(name: str, guaranteed: bool, wrong: int, diff: float = 0.0) -> VariantResult:
    diffs = (diff,) * 20
    return VariantResult(name, "", guaranteed, 20, wrong, diffs, 0, (1.0,) * 20, (1.0,) * 20, None)


def _gpu_result(*variants: VariantResult) -> StreamsResult:
    return StreamsResult(
        "cuda:0", True, 0.0, True, 1e-5, 1e-5, (64, 64), (), (), "", variants, workload="matmul"
    )


def test_the_h200_run_says_what_matched_and_what_the_mistakes_did(h200_run):
    rep = registry.build_report(h200_run)
    assert rep.headline == (
        "The side-stream matmul ordered by events (correct) matched the default-stream "
        "reference exactly in all 20 trials (max |side − reference| 0) · the 3 ordering "
        "mistakes gave wrong results in 20/20 (missing-producer-wait), 20/20 "
        "(missing-consumer-wait) and 14/20 (early-free) trials"
    )
    assert rep.ok and rep.verdict is None  # no time in the headline: nothing to doubt there


def test_the_error_figure_has_one_name_everywhere(h200_run):
    rep = registry.build_report(h200_run)
    assert glossary.label("streams", "max_abs_diff") == ERROR
    metrics = {m.label: m.value for m in rep.metrics}
    assert metrics[ERROR] == "0"
    assert (ERROR, "0") in [(m.label, m.value) for pair in rep.summary.pairs for m in pair]
    orderings = dict(rep.tables)["Orderings"]
    assert ERROR in orderings.columns and "error" not in orderings.columns  # none failed
    early_free = next(m for m in rep.metrics if m.label == "early-free: wrong results")
    assert f"{ERROR} " in early_free.help
    charts = json.dumps([chart.to_dict() for _, chart in rep.charts], ensure_ascii=False)
    said = [rep.headline, *rep.notes, *metrics, *(m.help or "" for m in rep.metrics), charts]
    assert not [name for name in OLD_NAMES if name in " ".join(said)]


def test_numbers_read_in_plain_notation(h200_run):
    rep = registry.build_report(h200_run)
    values = [m.value for m in rep.metrics] + [m.value for p in rep.summary.pairs for m in p]
    assert not [v for v in [rep.headline, *values] if "e+" in v or "e-0" in v]
    assert [error_text(v) for v in (0.0, 1.5e-5, 0.1234, 3140.4, 2.0)] == [
        "0", "0.000015", "0.123", "3,140", "2",
    ]  # fmt: skip


def test_a_cpu_run_says_what_ran_and_what_needs_cuda():
    rep = registry.build_report(_run(_cpu_result()))
    assert rep.headline == (
        "No CUDA streams on this CPU: the matmul ran on the host twice and the results matched "
        "exactly (max |side − reference| 0), 25 ms per call; the orderings, their wrong "
        "results and overlap need CUDA"
    )
    assert rep.ok and rep.verdict.ok  # quiet samples: the box is green
    # no ordering ran: the Summary shows the check's error and the time, not "wrong results"
    pairs = [[m.label for m in pair] for pair in rep.summary.pairs]
    assert pairs == [[ERROR, "the side-stream op's time per call (lab harness)"]]


def test_a_contended_cpu_time_makes_the_headline_amber_with_that_doubt():
    rep = registry.build_report(_run(_cpu_result(others=53.0)))
    assert not rep.verdict.ok and CONTENDED in rep.verdict.states
    assert rep.verdict.doubt == (
        "Doubt: host contended (others took up to 53 % of the cores) while the matmul was "
        "timed: its 25 ms per call is uncertain. The match itself is not in doubt."
    )
    # said once, in the headline's box: not again as an amber box of its own below it
    assert any("other processes used up to 53 %" in w for w in rep.warnings)  # in the Notes
    assert not rep.summary.warnings


def test_noisy_cpu_samples_are_a_doubt_too():
    noisy = (20.0, 30.0) * 10
    verdict = registry.build_report(_run(_cpu_result(samples=noisy))).verdict
    assert not verdict.ok and verdict.doubt.startswith("Doubt: noisy (IQR/median 40 %)")


def test_a_cpu_check_that_failed_says_so_in_red():
    rep = registry.build_report(_run(_cpu_result(diff=0.5, passed=False)))
    assert not rep.ok and rep.headline.startswith(
        "No CUDA streams on this CPU: the matmul ran on the host twice and the results "
        "differed (max |side − reference| 0.5, above rtol 1.3e-06, atol 1e-05): not timed"
    )


def test_an_ordered_variant_that_went_wrong_is_named_and_red():
    result = _gpu_result(
        _variant("correct", True, 0),
        _variant("missing-producer-wait", False, 20, 45.0),
        _variant("wait-stream", True, 3, 2.5),
    )
    rep = report.build({"spec": {"shape": [64, 64], "dtype": "float32"}}, result)
    assert rep.headline.endswith(
        " · the ordering mistake, missing-producer-wait, gave wrong results in 20/20 trials"
        " · wrong results where the ordering guarantees the result: wait-stream 3/20"
    )
    assert not rep.ok


def test_a_mistake_named_first_leads_and_the_ordered_ones_follow():
    result = _gpu_result(
        _variant("missing-consumer-wait", False, 17, 12.25),
        _variant("correct", True, 0),
        _variant("serial", True, 0),
    )
    rep = report.build({"spec": {"shape": [64, 64], "dtype": "float32"}}, result)
    assert rep.headline == (
        "The side-stream matmul under missing-consumer-wait, an ordering mistake, gave wrong "
        "results in 17/20 trials (max |side − reference| 12.2) · the 2 ordered variants: no "
        "wrong result"
    )
    assert rep.ok


def test_only_the_ordered_variant_run_says_no_mistake_was():
    result = _gpu_result(_variant("wait-stream", True, 0, 1e-6))
    headline = report.build({"spec": {"shape": [64, 64], "dtype": "float32"}}, result).headline
    assert headline == (
        "The side-stream matmul ordered by wait_stream (wait-stream) matched the default-stream "
        "reference in all 20 trials (max |side − reference| 0.000001) · no ordering mistake "
        "was run"
    )


def test_a_run_from_before_the_catalog_reads_as_the_seeds_matmul():
    old = dataclasses.replace(_gpu_result(_variant("correct", True, 0)), workload="")
    headline = report.build({"spec": {"shape": [64, 64], "dtype": "float32"}}, old).headline
    assert headline.startswith("The side-stream matmul ordered by events (correct)")
