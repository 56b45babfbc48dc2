"""Allocator's headline answers the page's question: on a GPU what the cache kept and what
empty_cache() gave back; on a CPU that the cache needs CUDA and what the host held, against the
ideal. Recorded runs (H200, and tests/fixtures/cpu: a default CPU Run of the page, torch
2.13 on 2 cores) and hand-made results; no column of a table is empty in every row."""

import gzip
import json
from dataclasses import replace
from pathlib import Path

import pytest
from allocatordata import MIB
from allocatordata import result as _result
from allocatordata import run as _run

from runtime_lab import registry
from runtime_lab.allocator.result import RssSample, StepRecord

FIXTURES = Path(__file__).parents[1] / "fixtures"
STEP = "8192x8192 step: host RSS peak above its start"


def _recorded(name: str) -> dict:
    run = json.loads(gzip.decompress((FIXTURES / name).read_bytes()))
    run["result"]["trace_file"] = None
    return run


def test_the_h200_run_says_what_the_cache_kept_and_what_empty_cache_gave_back():
    rep = registry.build_report(_recorded("h200/allocator-run.json.gz"))
    assert rep.headline == (
        "pointwise float32 on cuda:0: the caching allocator still held 1.58 GiB reserved once "
        "the sequence's tensors were freed (its peak allocated: 1.25 GiB); empty_cache() gave "
        "all of it back (0 GiB left)"
    )


def test_a_cpu_run_says_the_cache_needs_cuda_and_what_the_host_held_against_the_ideal():
    run = _recorded("cpu/allocator-run.json.gz")
    rep = registry.build_report(run)
    assert rep.headline == (
        "pointwise (rows × cols) float32 on CPU: a CPU has no caching allocator, so its curves "
        "(allocated, reserved, what empty_cache() returns) need CUDA. Host RSS instead: the "
        "8192x8192 step peaked 1.25 GiB above its start, 1.7× its inputs + output (0.75 GiB); "
        "the worker's RSS peaked at 1.72 GiB over the run"
    )
    held = registry.summary(run)["host_rss_step_peak_bytes"]
    # eager pointwise at its peak: x, y, silu(x + y), x − y and the output, 5 × 256 MiB
    assert held["8192x8192"] == pytest.approx(5 * 256 * MIB, rel=0.05)
    pairs = [[(m.label, m.value) for m in pair] for pair in rep.summary.pairs]
    assert pairs == [
        [(STEP, "1.25 GiB"), ("one call's peak at 8192x8192: ideal", "768 MiB")],
        [("host RSS peak", "1.72 GiB")],
    ]


def test_no_table_has_a_column_empty_in_every_row():
    for name in ("cpu/allocator-run.json.gz", "h200/allocator-run.json.gz"):
        for title, table in registry.build_report(_recorded(name)).tables:
            empty = [c for c in table.columns if table[c].isna().all()]
            assert not empty, (name, title, empty)
    titles = [t for t, _ in registry.build_report(_recorded("cpu/allocator-run.json.gz")).tables]
    assert titles == [
        "Steps (bytes; host RSS at each mark: memory_stats need CUDA)",
        "Eager vs compiled per shape (MiB; the peaks need CUDA)",
    ]


def _cpu(steps, rss) -> dict:
    result = replace(_result(), device="cpu", steps=tuple(steps), rss=tuple(rss), snapshots=())
    return _run(replace(result, trace=(), compare=None, empty_cache=None, graphs=None))


def _mark(t, label, event, mib, index=1):
    return StepRecord("sequence", index, label, event, t, mib * MIB)


def test_a_step_is_read_from_the_mark_before_it_and_a_repeat_keeps_the_largest():
    steps = [
        _mark(1.0, "64x64", "forward (activations held)", 500),  # within the step: no new start
        _mark(2.0, "64x64", "computed", 450),
        _mark(2.1, "64x64", "after del", 300),
        _mark(3.0, "64x64", "computed", 320, 2),  # the heap reused: a smaller rise
        _mark(3.1, "64x64", "after del", 300, 2),
    ]
    rss = [RssSample(0.0, 200 * MIB, 0), RssSample(1.5, 600 * MIB, 0), RssSample(2.5, 900, 0)]
    figures = registry.summary(_cpu(steps, rss))
    assert figures["host_rss_step_peak_bytes"] == {"64x64": 400 * MIB}  # 600 − 200, not 20
    headline = registry.build_report(_cpu(steps, rss)).headline
    assert headline.endswith(
        "Host RSS instead: the 64x64 step peaked 400 MiB above its start; the worker's RSS "
        "peaked at 600 MiB over the run"
    )


def test_compile_workers_alive_at_the_peak_are_said_to_be_in_it():
    rss = [RssSample(0.0, 200 * MIB, 0), RssSample(1.0, 900 * MIB, 3)]
    headline = registry.build_report(_cpu([], rss)).headline
    assert headline.endswith(
        "the worker's RSS peaked at 900 MiB over the run (compile workers included)"
    )


def test_a_gpu_run_has_no_host_step_figure():
    assert "host_rss_step_peak_bytes" not in registry.summary(_run(_result()))


def test_what_empty_cache_could_not_return_is_said():
    steps = list(_result().steps)
    steps[-1] = replace(steps[-1], reserved_bytes=40 * MIB)
    headline = registry.build_report(_run(replace(_result(), steps=tuple(steps)))).headline
    assert headline.endswith("empty_cache() gave back 300 MiB, 40 MiB stayed (blocks still in use)")


def test_a_gpu_run_without_the_sequence_says_where_the_cache_figures_come_from():
    result = replace(_result(), steps=(), scenarios=("compiled", "side-stream"))
    assert registry.build_report(_run(result)).headline == (
        "pointwise float32 on cuda:0: ran compiled, side-stream; what the cache keeps is read "
        "from the sequence scenario, not run here"
    )
