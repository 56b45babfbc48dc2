"""Allocator runs of a catalog workload: the eager vs compiled peak frames, chart, notes, headline,
figures, from hand-made results (no worker); runs from before the catalog keep their report."""

import json
from dataclasses import replace

import pytest
from allocatordata import MIB, workload_result
from allocatordata import result as _result
from allocatordata import run as _run
from vegaspec import walk

from runtime_lab import registry
from runtime_lab.allocator.report import peak as pf
from runtime_lab.allocator.report import workload as rw
from runtime_lab.allocator.result import AllocatorResult, WorkloadPeak
from runtime_lab.results import from_plain, to_plain

CE_INPUTS = 4096 * 32000 * 2 + 4096 * 8  # bf16 logits + int64 targets
CE_EAGER = 2 * 4096 * 32000 * 4 + 512  # the fp32 copy and log_softmax's output, live together


def test_long_frame_has_ideal_eager_compiled_per_shape_inputs_included():
    long = pf.peaks_long(workload_result())
    assert list(long["shape"].unique()) == ["1024x32000", "4096x32000"]
    big = long[long["shape"] == "4096x32000"].set_index("series")
    assert list(big.index) == ["ideal", "eager", "compiled"]
    assert big.loc["ideal", "bytes"] == CE_INPUTS + 4
    assert big.loc["eager", "bytes"] == CE_INPUTS + CE_EAGER
    assert big.loc["eager", "above_inputs_bytes"] == CE_EAGER
    assert big.loc["eager", "x_ideal"] == pytest.approx((CE_INPUTS + CE_EAGER) / (CE_INPUTS + 4))
    assert big.loc["compiled", "x_ideal"] == pytest.approx(1.0, abs=1e-5)


def test_a_cpu_run_draws_no_peak_and_its_table_leaves_them_empty():
    result = workload_result(cuda=False)
    assert pf.peaks_long(result).empty  # nothing measured: no bar, and never a zero
    table = pf.peaks_table(result)
    assert list(table["shape"]) == ["1024x32000", "4096x32000"]
    assert table["eager_peak_MiB"].isna().all() and table["compiled_peak_MiB"].isna().all()
    assert table.loc[1, "ideal_MiB"] == pytest.approx((CE_INPUTS + 4) / MIB)
    charts, tables, notes = rw.parts(result)
    ((title, shown),) = tables
    assert charts == [] and title == "Eager vs compiled per shape (MiB; the peaks need CUDA)"
    # the table shows what ran; the columns no CPU row fills are left out, not drawn as None
    assert list(shown.columns) == [
        "shape", "dtype", "inputs_MiB", "output_MiB", "ideal_MiB", "warm_call_s", "compiles",
        "max_abs_diff",
    ]  # fmt: skip
    cpu = next(n for n in notes if n.startswith("Eager vs compiled peak needs CUDA"))
    assert "2 shape(s)" in cpu and "compiled 2 graph(s) in 5.0 s" in cpu
    assert " 0 B" not in " ".join(notes)


def test_chart_groups_the_three_bars_per_shape_in_order():
    charts, _, _ = rw.parts(workload_result())
    ((title, chart),) = charts
    assert title == "Eager vs compiled peak"
    spec = chart.to_dict()
    encodings = [d["encoding"] for d in walk(spec) if "encoding" in d]
    assert all(e["yOffset"]["field"] == "series" for e in encodings)
    assert encodings[0]["y"]["sort"] == ["1024x32000", "4096x32000"]
    assert encodings[0]["color"]["scale"]["domain"] == ["ideal", "eager", "compiled"]
    assert spec["title"]["text"].startswith("cross_entropy: one call's peak per shape")


def test_notes_say_what_to_look_for_then_what_happened_with_the_figures():
    notes = rw.notes(workload_result())
    assert notes[0].startswith("What to look for (cross_entropy): Training code upcasts")
    said = notes[1]
    assert said.startswith("Expected: eager materialises") and "silu" not in said
    assert "cross_entropy at 4096x32000 (bfloat16)" in said
    assert "compile removed 1,000 MiB (100 % of eager's peak above the inputs)" in said
    assert "eager's one call peaked at 1,000 MiB, compiled's at 1 KiB" in said


def test_a_compiled_peak_above_eagers_is_said_against_the_expectation():
    result = workload_result()
    worse = tuple(replace(p, compiled_peak_bytes=p.eager_peak_bytes * 2) for p in result.peaks)
    said = rw.notes(replace(result, peaks=worse))[1]
    assert "compiled peaked 1,000 MiB above eager, against the expectation" in said


def test_headline_and_metric_name_the_workload_its_dims_and_the_peaks():
    run = _run(workload_result())
    report = registry.build_report(run)
    assert report.headline.startswith(
        "cross_entropy (tokens × vocab) bfloat16 on cuda:0: the caching allocator still held "
        "340 MiB reserved"
    )
    tail = " · one call at 4096x32000: eager 1.22 GiB → compiled 250 MiB (ideal 250 MiB)"
    assert report.headline.endswith(tail)
    metric = report.metrics[0]
    assert metric.label == "one call's peak: eager → compiled"
    assert metric.value == "1.22 GiB → 250 MiB"
    assert "5.00× and 1.00× the ideal 250 MiB (inputs 250 MiB + output 4 B)" in metric.help
    assert "Eager vs compiled peak" in [t for t, _ in report.charts]
    # the Peaks chart's pointwise words come with the seed's compare only
    peaks = dict(report.charts)["Peaks"].to_dict()
    assert "silu" not in json.dumps(peaks["title"])


def test_figures_give_each_shapes_three_peaks():
    figures = registry.summary(_run(workload_result()))
    assert figures["workload"] == "cross_entropy" and figures["dims"] == ["tokens", "vocab"]
    big = figures["call_peak_bytes"]["4096x32000"]
    assert big == {
        "ideal": CE_INPUTS + 4,
        "eager": CE_INPUTS + CE_EAGER,
        "compiled": CE_INPUTS + 1024,
    }
    cpu = registry.summary(_run(workload_result(cuda=False)))
    assert cpu["call_peak_bytes"]["4096x32000"]["eager"] is None


def test_a_run_from_before_the_catalog_keeps_its_report_and_figures():
    old = _result()
    report = registry.build_report(_run(old))
    assert report.headline.startswith(
        "pointwise float32 on cuda:0: the caching allocator still held 340 MiB reserved"
    )
    assert "Eager vs compiled peak" not in [t for t, _ in report.charts]
    assert not any(n.startswith("What to look for") for n in report.notes)
    assert rw.parts(old) == ([], [], [])
    assert "workload" not in registry.summary(_run(old))
    plain = to_plain(old)
    for name in ("workload", "dims", "params", "peaks"):
        plain.pop(name)  # as stored before these fields existed
    assert from_plain(AllocatorResult, plain) == old


def test_a_failed_shape_is_a_note_and_not_a_bar():
    failed = WorkloadPeak("8192x32000", (8192, 32000), "bfloat16", error="OutOfMemoryError: x")
    result = workload_result()
    result = replace(result, peaks=(*result.peaks, failed))
    assert "8192x32000" not in set(pf.peaks_long(result)["shape"])
    assert "Eager vs compiled at 8192x32000 failed: OutOfMemoryError: x" in rw.notes(result)


class _Probe:
    """memory_stats as a CUDA run would read them: 100 live before, 350 at the call's peak."""

    cuda = True

    def __init__(self):
        self.log, self.peak = [], 100

    def sync(self):
        self.log.append("sync")

    def reset_peak(self):
        self.log.append("reset")
        self.peak = 100

    def stat(self, key):
        self.log.append(key.split(".")[-1])
        return {"current": 100, "peak": self.peak}[key.split(".")[-1]]


def test_peak_above_reads_before_resets_then_calls():
    from runtime_lab.allocator.run.work import peak_above

    probe = _Probe()

    def call(x):
        probe.log.append("call")
        probe.peak = 350
        return x

    peak, out = peak_above(probe, call, (7,))
    assert (peak, out) == (250, 7)
    assert probe.log == ["sync", "current", "reset", "call", "sync", "peak"]
