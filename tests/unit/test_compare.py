"""The compare core: differing fields only, ratios, noise from real samples, the headline, charts."""

from __future__ import annotations

import copy
import dataclasses
import math

import pandas as pd
import pytest
from comparedata import (
    CPU_ALLOCATOR,
    CPU_FUSION,
    CPU_RECOMPILES,
    CPU_STREAMS,
    FAILED_SELFTEST,
    H200_ALLOCATOR,
    H200_STREAMS,
    h200_fusion,
    legacy_runs,
    numbered,
)

from runtime_lab.compare import comparison as compare
from runtime_lab.compare import table as compare_table
from runtime_lab.compare.comparison import BEYOND, MISSING, NO_SPREAD, WITHIN, CompareError
from runtime_lab.record import Run

RUNS = legacy_runs()


def _fusion(run_id: int, **timings) -> Run:
    """The recorded CPU fusion run under another id, with some modes' host samples replaced."""
    run = numbered(RUNS[CPU_FUSION], run_id)
    for mode in run["result"]["modes"]:
        if mode["mode"] in timings:
            mode["timing"]["host_ms"] = list(timings[mode["mode"]])
    return run


def _samples(mode: str) -> list[float]:
    found = next(m for m in RUNS[CPU_FUSION]["result"]["modes"] if m["mode"] == mode)
    return found["timing"]["host_ms"]


def _row(long: pd.DataFrame, key: str, run: str) -> pd.Series:
    return long[(long["key"] == key) & (long["run"] == run)].iloc[0]


def test_differences_list_only_the_fields_that_differ():
    base = RUNS[CPU_FUSION]
    other = numbered(base, 2)
    other["env"]["torch"] = "2.11.0+cu130"
    other["spec"]["repeat"] = 200
    diffs = compare.differences([base, other])
    assert list(diffs["field"]) == ["torch", "timed calls"]
    assert list(diffs.columns) == ["section", "field", "#1", "#2"]
    torch = diffs.set_index("field").loc["torch"]
    assert (torch["section"], torch["#1"], torch["#2"]) == (
        "environment",
        "2.13.0+cpu",
        "2.11.0+cu130",
    )
    assert compare.differences([base, numbered(base, 3)]).empty


def test_h200_against_cpu_differs_in_gpu_torch_cuda_driver_and_shape():
    diffs = compare.differences([RUNS[CPU_FUSION], numbered(h200_fusion(RUNS[CPU_FUSION]), 8)])
    by = diffs.set_index("field")
    assert by.loc["GPU", "#1"] == "CPU" and by.loc["GPU", "#8"] == "NVIDIA H200"
    assert {"torch", "CUDA", "driver", "python", "shape", "device (asked)"} <= set(by.index)
    assert "dtype" not in by.index and "host" not in by.index  # both "vm", both float32


def test_ratio_is_against_the_first_run():
    doubled = [2 * v for v in _samples("eager")]
    long = compare.figures([RUNS[CPU_FUSION], _fusion(2, eager=doubled)])
    eager = _row(long, "steady_state_ms.eager", "#2")
    assert eager["ratio"] == pytest.approx(2.0)
    assert _row(long, "steady_state_ms.eager", "#1")["verdict"] == "baseline"
    assert _row(long, "steady_state_ms.inductor", "#2")["ratio"] == pytest.approx(1.0)
    gbps = _row(long, "achieved_gbps.eager", "#2")
    assert gbps["ratio"] == pytest.approx(0.5, rel=0.02)  # quartiles of GB/s per call
    table = compare_table.figure_table(long, ["#1", "#2"]).set_index("figure")
    # the ratio in words: a time twice the baseline's is slower, half the bandwidth is worse
    assert table.loc["eager steady-state time", "#2 ÷ #1"] == "2× slower"
    assert table.loc["eager achieved bandwidth", "#2 ÷ #1"].endswith("× lower (worse)")
    assert table.loc["inductor steady-state time", "#2 ÷ #1"] == "1×"


def test_two_halves_of_real_samples_are_within_noise():
    """The recorded 50 eager calls split into two runs of 25: the same process, the same spread."""
    eager = _samples("eager")
    long = compare.figures([_fusion(1, eager=eager[0::2]), _fusion(2, eager=eager[1::2])])
    row = _row(long, "steady_state_ms.eager", "#2")
    assert row["samples"] == 25 and row["verdict"] == WITHIN
    assert row["ratio"] != 1.0  # the halves' medians differ, yet their IQRs overlap


def test_a_slower_mode_with_real_samples_is_beyond_noise():
    """Eager given the recorded inductor samples (0.40 ms against 0.18 ms on that CPU)."""
    long = compare.figures([RUNS[CPU_FUSION], _fusion(2, eager=_samples("inductor"))])
    row = _row(long, "steady_state_ms.eager", "#2")
    base = _row(long, "steady_state_ms.eager", "#1")
    assert row["verdict"] == BEYOND and row["q1"] > base["q3"]
    assert row["ratio"] == pytest.approx(row["value"] / base["value"]) and row["ratio"] > 2


def test_figures_without_samples_or_in_one_run_only_say_so():
    long = compare.figures([RUNS[CPU_FUSION], numbered(h200_fusion(RUNS[CPU_FUSION]), 8)])
    assert _row(long, "cold_compile_s", "#8")["verdict"] == NO_SPREAD
    assert _row(long, "steady_state_ms.dynamo-eager", "#8")["verdict"] == MISSING
    # the bytes model's prediction is compared too: one number, no noise verdict
    assert _row(long, "predicted_speedup", "#8")["verdict"] == NO_SPREAD


def _long(rows):
    frame = pd.DataFrame(rows, columns=["key", "figure", "run", "ratio", "verdict"])
    return frame.assign(unit=None, value=1.0, q1=None, q3=None, samples=0)


def test_headline_picks_the_largest_change_beyond_noise():
    long = _long(
        [
            ("a", "eager time", "#1", 1.0, "baseline"),
            ("a", "eager time", "#2", 2.0, BEYOND),
            ("b", "inductor time", "#2", 0.25, BEYOND),  # |log 0.25| > |log 2|
            ("c", "cold compile", "#2", 10.0, NO_SPREAD),  # bigger, but nothing to judge it by
            ("d", "loop time", "#2", 8.0, WITHIN),
        ]
    )
    diffs = pd.DataFrame({"field": ["GPU", "torch"], "#1": ["CPU", "2.13"], "#2": ["H200", "2.11"]})
    text = compare.headline(long, diffs, ["#1", "#2"])
    # the figure's direction in words, then the fields that differ as facts, not as a cause
    assert text == (
        "inductor time: 4× lower in #2 than #1 (beyond noise). Fields that differ: GPU (CPU vs "
        "H200) and torch (2.13 vs 2.11); the comparison does not say which of them, if any, "
        "made the change."
    )
    timed = long.assign(unit="ms", better="lower")
    assert compare.headline(timed, diffs, ["#1", "#2"]).startswith(
        "inductor time: 4× faster in #2 than #1 (beyond noise)."
    )
    only_unjudged = long[long["verdict"] != BEYOND]
    assert compare.headline(only_unjudged, diffs.iloc[:0], ["#1", "#2"]) == (
        "cold compile: 10× higher in #2 than #1 (no spread recorded). The runs share spec and "
        "environment."
    )


def test_headline_of_the_h200_against_the_cpu():
    view = compare.build([RUNS[CPU_FUSION], numbered(h200_fusion(RUNS[CPU_FUSION]), 8)])
    assert view.headline.startswith(  # the headline's own figure first, then the biggest change
        "measured speed-up (eager ÷ compiled) 0.46× in #1 → 3.00× in #8: 6.5× higher (better), "
        "beyond noise. Biggest change: "
        "inductor achieved bandwidth: 102× higher (better) in #8 than #1 (beyond noise). "
        "Fields that differ: shape (256x256 vs 4096x4096), device (asked) (cpu vs cuda)"
    )
    assert "GPU (CPU vs NVIDIA H200) and 7 more fields" in view.headline


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("12", "at least 2"),
        ("12,12", "at least 2"),
        ("1,2,3,4,5,6,7", "at most 6"),
        ("12,abc", "whole numbers"),
        ("12,١٥", "whole numbers"),  # Arabic-Indic digits: int() would take them
        ("", "at least 2"),
    ],
)
def test_bad_ids_are_one_clear_message(given, message):
    with pytest.raises(CompareError, match=message):
        compare.parse_ids(given)


def test_ids_keep_their_order():
    assert compare.parse_ids("15, 12") == [15, 12]
    assert compare.parse_ids(["15", "12,3"]) == [15, 12, 3]


def test_runs_must_exist_and_be_of_one_experiment():
    get = RUNS.get
    with pytest.raises(CompareError, match="no run #99 in history"):
        compare.load(get, [CPU_FUSION, 99])
    with pytest.raises(CompareError, match="#1 is fusion, #2 is streams"):
        compare.load(get, [CPU_FUSION, CPU_STREAMS])
    assert [r["id"] for r in compare.load(get, [CPU_STREAMS, H200_STREAMS])] == [2, 6]


def _layers(spec: dict) -> list[dict]:
    return [spec, *(layer for sub in spec.get("layer", []) for layer in _layers(sub))]


PAIRS = [
    (CPU_FUSION, None),
    (CPU_STREAMS, H200_STREAMS),
    (CPU_ALLOCATOR, H200_ALLOCATOR),
    (CPU_RECOMPILES, CPU_RECOMPILES),
]


@pytest.mark.parametrize(("first", "second"), PAIRS)
def test_every_chart_has_the_run_as_colour_and_a_tooltip_on_every_mark(first, second):
    other = h200_fusion(RUNS[first]) if second is None else copy.deepcopy(RUNS[second])
    view = compare.build([RUNS[first], numbered(other, 99)])
    assert view.charts, view.experiment
    for title, chart in view.charts:
        spec = chart.to_dict()
        marks = [layer for layer in _layers(spec) if "mark" in layer]
        assert marks, title
        for layer in marks:
            encoding = {**spec.get("encoding", {}), **layer.get("encoding", {})}
            assert encoding["color"]["field"] == "run", title
            assert encoding["tooltip"], title
        rows = [r for data in spec["datasets"].values() for r in data]
        assert {r["run"] for r in rows} <= {f"#{first}", "#99"} and rows, title


def test_a_failed_run_has_no_figures_and_says_so():
    failed = RUNS[FAILED_SELFTEST]
    view = compare.build([failed, numbered(failed, 9)])
    assert view.table.empty and view.charts == ()
    assert view.notes == ("#5 failed: no figures", "#9 failed: no figures")
    assert view.headline.startswith("No key figure differs between #5 and #9")


def test_ratio_of_zero_to_zero_is_no_change():
    long = compare.figures([RUNS[H200_STREAMS], numbered(RUNS[H200_STREAMS], 9)])
    assert _row(long, "mismatches", "#9")["ratio"] == 1.0
    host = _row(long, "host_us_median.done.synchronize()", "#9")
    assert host["samples"] >= 3 and host["verdict"] == WITHIN and not math.isnan(host["q1"])


def test_each_runs_result_is_rebuilt_once_per_comparison(monkeypatch):
    """For its figures, their samples and the charts alike (it was three times)."""
    from runtime_lab import registry

    rebuilt = []
    real = registry.result_from_record

    def counted(experiment, data):
        rebuilt.append(experiment)
        return real(experiment, data)

    monkeypatch.setattr(registry, "result_from_record", counted)
    runs = [RUNS[CPU_FUSION], numbered(h200_fusion(RUNS[CPU_FUSION]), 8), _fusion(9)]
    view = compare.build(runs)
    assert rebuilt == ["fusion"] * 3
    assert view.charts and not view.table.empty


def _workload(run_id: int, **options) -> Run:
    """The recorded CPU fusion run under another id, with these options set."""
    run = numbered(RUNS[CPU_FUSION], run_id)
    run["spec"]["options"].update(options)
    return run


def test_different_workloads_are_said_in_one_line_and_in_the_table():
    # the legacy run has no workload option: it ran the seed function, pointwise
    view = compare.build([RUNS[CPU_FUSION], _workload(2, workload="rms_norm", params="")])
    assert view.workloads.startswith("Different workloads: #1 ran pointwise, #2 ran rms_norm.")
    row = view.differences.set_index("field").loc["option workload"]
    assert (row["#1"], row["#2"]) == ("pointwise", "rms_norm")


def test_a_run_from_before_the_catalog_counts_as_the_workload_it_named():
    old = _workload(1, variant="long-chain")  # fusion's option before it was renamed
    new = _workload(2, workload="long-chain", params="")
    view = compare.build([old, new])
    assert view.workloads == ""
    assert not {"option variant", "option workload", "option params"} & set(
        view.differences["field"]
    )
    other = compare.build([old, _workload(3, workload="pointwise", params="")])
    assert other.workloads.startswith("Different workloads: #1 ran long-chain, #3 ran pointwise")
    # no option at all and the default spelled out are the same workload
    assert compare.build([RUNS[CPU_FUSION], _workload(4, workload="pointwise")]).workloads == ""


def test_same_workload_with_different_parameters_says_which():
    base = _workload(1, workload="swiglu_mlp", params="")
    spelled = _workload(2, workload="swiglu_mlp", params="intermediate=14336")  # its default
    smaller = _workload(3, workload="swiglu_mlp", params="intermediate=2048")
    assert compare.build([base, spelled]).workloads == ""
    assert compare.build([base, spelled, smaller]).workloads == (
        "Same workload (swiglu_mlp), different parameters: #1 intermediate=14336, "
        "#2 intermediate=14336, #3 intermediate=2048."
    )


def test_experiments_without_workloads_and_streams_orderings_are_left_alone():
    allocator = RUNS[CPU_ALLOCATOR]
    assert compare.build([allocator, numbered(allocator, 9)]).workloads == ""
    # streams' "variant" is its orderings, not a workload: its old runs ran the matmul
    streams = RUNS[CPU_STREAMS]
    other = numbered(streams, 9)
    other["spec"]["options"] |= {"workload": "rms_norm", "params": ""}
    view = compare.build([streams, other])
    assert view.workloads.startswith("Different workloads: #2 ran matmul, #9 ran rms_norm.")
    assert "option variant" not in set(view.differences["field"])


def _user_run(run_id: int, sha: str) -> Run:
    """A fusion run of a user's workload, with the code its worker recorded."""
    run = _workload(run_id, workload="my_gelu", params="")
    code = {"file": "/home/me/my_workloads.py", "sha256": sha, "source": "", "truncated": False}
    return dataclasses.replace(run, worker={**(run.worker or {}), "workload_code": code})


def test_one_workload_name_with_other_code_is_said_in_one_line():
    view = compare.build([_user_run(1, "a" * 64), _user_run(2, "b" * 64)])
    assert view.workloads.startswith(
        "Same workload name (my_gelu), different code: sha256 #1 aaaaaaaaaaaa, #2 bbbbbbbbbbbb."
    )
    assert compare.build([_user_run(1, "a" * 64), _user_run(2, "a" * 64)]).workloads == ""
