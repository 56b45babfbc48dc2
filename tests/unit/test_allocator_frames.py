"""Allocator frames, charts, report and CLI summary from a hand-made CUDA-like result."""

from dataclasses import replace

import h200data
import pytest
from allocatordata import MIB
from allocatordata import result as _result
from allocatordata import run as _run

from runtime_lab import registry
from runtime_lab.allocator.report import charts as ca
from runtime_lab.allocator.report import frames as fa


def test_steps_frame_and_long_form():
    steps = fa.steps_frame(_result())
    assert len(steps) == 7
    assert steps["x"].is_unique  # repeated shapes keep their own x position in their scenario
    assert steps["x"].iloc[0] == "01 1024x1024 · computed"  # numbered within the scenario
    computed = steps[steps["event"] == "computed"]
    assert list(computed["fragmentation_bytes"] // MIB) == [8, 148, 292]
    long = fa.steps_long(steps)
    assert set(long["series"]) == {"allocated", "reserved", "peak"}
    after_del = long[(long["event"] == "after del") & (long["label"] == "4096x4096")]
    by_series = dict(zip(after_del["series"], after_del["MiB"], strict=True))
    assert by_series == {"allocated": 0.0, "reserved": 340.0, "peak": 320.0}


def test_curves_csv_has_every_source_in_time_order():
    frame = fa.curves_csv_frame(_result())
    assert set(frame["source"]) == {"snapshot", "psutil", "memory_stats"}
    assert frame["t_s"].is_monotonic_increasing
    assert len(frame) == 60 * 3 + 10 + 7 * 3


def test_empty_cache_and_peaks_frames():
    rounds = fa.empty_cache_frame(_result())
    assert list(rounds.groupby("variant")["per_step_ms"].median().round(2)) == [3.1, 1.1]
    peaks = fa.peaks_frame(_result())
    assert peaks[["what", "series", "MiB"]].to_dict("records") == [
        {"what": "sequence", "series": "reserved", "MiB": 340.0},
        {"what": "sequence", "series": "allocated", "MiB": 320.0},
        {"what": "eager 8192x8192: one call", "series": "above inputs", "MiB": 768.0},
        {"what": "compiled 8192x8192: one call", "series": "above inputs", "MiB": 256.0},
    ]


def test_snapshot_tables():
    snaps = fa.snapshots_frame(_result())
    assert snaps.loc[0, "fragmentation"] == pytest.approx(1 - 64 / 340)
    streams = fa.streams_frame(_result())
    assert streams.to_dict("records") == [
        {
            "scenario": "sequence",
            "stream": "default",
            "reserved_MiB": 340.0,
            "peak_allocated_MiB": 320.0,
        }
    ]


def test_charts_render_and_carry_their_explanations():
    result = _result()
    steps = fa.steps_frame(result)
    timeline = ca.timeline_chart(
        fa.trace_frame(result), fa.rss_frame(result), steps, ["why"]
    ).to_dict()
    assert timeline["title"]["subtitle"] == ["why"]
    (block,) = timeline["vconcat"]  # one scenario: one block
    assert len(block["vconcat"]) == 2  # GPU above, host RSS below, one time axis
    step = ca.steps_chart(fa.steps_long(steps), "sequence", ["reserved stays"]).to_dict()
    assert step["title"]["text"] == "sequence: memory_stats per step"
    assert [layer["mark"]["type"] for layer in step["layer"]] == ["bar", "line"]
    # Streamlit's default autosize ("fit") would squeeze the bars into what the labels leave
    assert step["autosize"] == {"type": "fit-x", "contains": "padding"}
    assert step["height"] == ca.STEPS_HEIGHT


def test_report_metrics_warnings_and_downloads(tmp_path):
    copy = tmp_path / "snap.pickle"
    recorded = h200data.snapshot_pickle(copy)
    rep = registry.build_report(_run(_result(str(copy))))
    assert rep.headline == (
        "pointwise float32 on cuda:0: the caching allocator still held 340 MiB reserved once "
        "the sequence's tensors were freed (its peak allocated: 320 MiB); empty_cache() gave "
        "all of it back (0 MiB left)"
    )
    metrics = {m.label: m.value for m in rep.metrics}
    assert metrics["peak above inputs: eager → compiled"] == "768 MiB → 256 MiB"
    assert metrics["empty_cache every step costs"] == "2 ms per step"
    assert metrics["block reused while the side stream ran"] == (
        "yes → no (without → with record_stream)"
    )
    assert metrics["CUDA-graph private pool"] == "256 MiB"
    assert [t for t, _ in rep.charts] == [
        "Over time",
        "Per step: sequence",
        "Peaks",
        "Cost of empty_cache",
    ]
    assert any("hit max_entries in sequence" in w for w in rep.warnings)
    assert any("25,000 trace points" in n for n in rep.notes)
    names = [d[1] for d in rep.downloads]
    assert names == [
        "run-7.json",
        "allocator-curves.csv",
        "allocator-steps.csv",
        "snapshot-sequence.pickle",
    ]
    assert rep.downloads[-1][2] == recorded


def test_the_snapshot_before_empty_cache_downloads_first_and_says_so(tmp_path):
    end, held = tmp_path / "end.pickle", tmp_path / "held.pickle"
    h200data.snapshot_pickle(end)
    held.write_bytes(b"segments")
    result = _result(str(end))
    snap = replace(result.snapshots[0], segments_file=str(held))
    run = _run(replace(result, snapshots=(snap,)))
    rep = registry.build_report(run)
    assert registry.summary(run)["snapshots_before_empty_cache"] == [str(held)]
    snaps = [d for d in rep.downloads if d[1].startswith("snapshot-")]
    assert [(label, name) for label, name, _, _ in snaps] == [
        (
            "Snapshot sequence: segments before empty_cache",
            "snapshot-sequence-before-empty-cache.pickle",
        ),
        ("Snapshot sequence: end, segments returned", "snapshot-sequence.pickle"),
    ]
    assert snaps[0][2] == b"segments"


def test_cli_summary_keys():
    figures = registry.summary(_run(_result()))
    assert figures["allocated_bytes"] == {"sequence": 0}
    assert figures["reserved_bytes"] == {"sequence": 340 * MIB}
    assert figures["peak_bytes"] == {"sequence": 320 * MIB}
    assert figures["reserved_after_empty_cache_bytes"] == {"sequence": 0}
    assert len(figures["steps"]) == 7 and figures["steps"][2]["label"] == "4096x4096"
    assert figures["empty_cache_cost_ms"] == pytest.approx(2.0)
    assert figures["compiled"]["delta_bytes"] == 512 * MIB
    assert figures["side_stream"]["reused_without_record_stream"] is True


def test_report_says_which_timings_ran_under_memory_history():
    plain = registry.build_report(_run(_result()))  # as stored before the lab said so
    help_of = {m.label: m.help for m in plain.metrics}
    assert "memory history" not in help_of["empty_cache every step costs"]
    assert not any("step_ms" in n for n in plain.notes)
    result = _result()
    timed = replace(result.empty_cache, timed_before_history=True)
    rep = registry.build_report(
        _run(replace(result, empty_cache=timed, step_ms_under_history=True))
    )
    help_of = {m.label: m.help for m in rep.metrics}
    assert help_of["empty_cache every step costs"].endswith("; timed before any memory history")
    assert sum("step_ms in the Steps table" in n for n in rep.notes) == 1
    assert [m.value for m in rep.metrics] == [m.value for m in plain.metrics]
    assert registry.summary(_run(result)) == registry.summary(
        _run(replace(result, empty_cache=timed, step_ms_under_history=True))
    )
