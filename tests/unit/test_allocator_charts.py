"""Allocator charts from a real H200 run: per-scenario time axes, no stacking, bounded data."""

import gzip
import json
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from vegaspec import walk as _walk

from runtime_lab import registry
from runtime_lab.allocator.report import charts as ca
from runtime_lab.allocator.report import frames as fa
from runtime_lab.registry import result_from_record

MIB = 2**20
RUN = Path(__file__).parents[1] / "fixtures" / "h200" / "allocator-run.json.gz"
SCENARIOS = ["sequence", "compiled", "empty-cache", "side-stream", "cudagraphs"]


@pytest.fixture(scope="module")
def run():
    return json.loads(gzip.decompress(RUN.read_bytes()))


@pytest.fixture(scope="module")
def result(run):
    return result_from_record("allocator", run["result"])


@pytest.fixture(scope="module")
def timeline(result):
    steps = fa.steps_frame(result)
    chart = ca.timeline_chart(fa.trace_frame(result), fa.rss_frame(result), steps, ["why"])
    return chart.to_dict()


def _rows(spec: dict, node: dict) -> pd.DataFrame:
    """The rows behind every layer of one panel."""
    names = {d["data"]["name"] for d in _walk(node) if "name" in d.get("data", {})}
    return pd.DataFrame([row for name in names for row in spec["datasets"][name]])


def _layer(spec: dict, panel: dict, mark: str) -> pd.DataFrame:
    """The rows of a panel's layers (nested ones too) that draw this mark."""
    layers = [x for x in _walk(panel) if isinstance(x.get("mark"), dict)]
    layers = [x for x in layers if x["mark"]["type"] == mark]
    return pd.concat([_rows(spec, x) for x in layers], ignore_index=True)


def test_one_block_per_scenario_in_run_order_each_on_its_own_time_axis(timeline):
    blocks = timeline["vconcat"]
    assert [b["title"]["text"].split(" · ")[0] for b in blocks] == SCENARIOS
    spans = []
    for block in blocks:
        gpu, host = block["vconcat"]  # GPU memory above host RSS, for the same scenario
        domains = [
            d["scale"]["domain"] for d in _walk(block) if d.get("field") == "ms" and "scale" in d
        ]
        assert domains and all(d == domains[0] for d in domains)  # both panels line up
        spans.append(domains[0][1])
    # the compile's ~8 s is the compiled panel's alone: the sequence's steps keep their width
    assert spans[1] > 8000 and spans[0] < 400 and spans[2] < 400


def test_reserved_is_an_unstacked_area_within_what_the_scenario_reserved(timeline, result):
    assert not [d for d in _walk(timeline) if d.get("stack") is not None]
    y = [d["y"] for d in _walk(timeline) if isinstance(d.get("y"), dict)]
    y = [e for e in y if e.get("field") == "MiB"]
    assert y and all("stack" in e and e["stack"] is None for e in y)
    peak = {s.scenario: s.peak_reserved_bytes / MIB for s in result.snapshots}
    for scenario, block in zip(SCENARIOS, timeline["vconcat"], strict=True):
        area = _layer(timeline, block["vconcat"][0], "area")
        assert set(area["series"]) == {"reserved"} and set(area["scenario"]) == {scenario}
        assert area["MiB"].max() == pytest.approx(peak[scenario])
        assert area["ms"].min() >= 0


def test_pending_free_only_where_a_block_waited_on_another_stream(timeline):
    lines = {
        s: _layer(timeline, b["vconcat"][0], "line")
        for s, b in zip(SCENARIOS, timeline["vconcat"], strict=True)
    }
    assert set(lines["sequence"]["series"]) == {"allocated"}  # frees completed at once
    side = lines["side-stream"]
    pending = side[side["series"] == "pending free"]
    assert pending["MiB"].max() == pytest.approx(64.0)  # the record_stream round's 64 MiB block


def test_step_labels_are_spaced_and_every_mark_has_a_rule(timeline, result):
    steps = fa.steps_frame(result)
    for scenario, block in zip(SCENARIOS, timeline["vconcat"], strict=True):
        gpu = block["vconcat"][0]
        rules = _layer(timeline, gpu, "rule")
        assert len(rules) == (steps["scenario"] == scenario).sum()
        span = block["vconcat"][0]["layer"][0]["encoding"]["x"]["scale"]["domain"][1]
        texts = _layer(timeline, gpu, "text")["ms"].sort_values()
        assert (texts.diff().dropna() * ca.WIDTH / span >= ca.LABEL_GAP_PX).all()


def test_chart_data_stays_bounded(timeline, result):
    rows = sum(len(v) for v in timeline["datasets"].values())
    budget = 3 * len(result.trace) + len(result.rss) + 3 * len(result.steps)
    assert rows <= budget < 5000


def test_host_rss_is_split_by_scenario_window(result):
    steps = fa.steps_frame(result)
    windows = fa.scenario_windows(fa.trace_frame(result), steps)
    assert list(windows["scenario"]) == SCENARIOS
    assert (windows["start_s"].iloc[1:].values >= windows["end_s"].iloc[:-1].values).all()
    rss = fa.within(fa.rss_frame(result), windows)
    assert set(rss["scenario"]) == set(SCENARIOS) and (rss["ms"] >= 0).all()


def test_peaks_are_each_scenarios_own(result):
    peaks = fa.peaks_frame(result).set_index(["what", "series"])["MiB"]
    # side-stream's steps still carry compiled's 1280 MiB peak (no reset); its trace says 192
    assert peaks[("side-stream", "allocated")] == pytest.approx(192.0)
    assert peaks[("sequence", "reserved")] == pytest.approx(1620.0)
    assert peaks[("eager 8192x8192: one call", "above inputs")] == pytest.approx(768.0)


def test_every_chart_of_the_report_keeps_its_height(run):
    charts = dict(registry.build_report(run).charts)
    assert list(charts) == [
        "Over time",
        "Per step: sequence",
        "Per step: empty-cache",
        "Peaks",
        "Cost of empty_cache",
    ]
    for title in ("Per step: sequence", "Per step: empty-cache", "Peaks", "Cost of empty_cache"):
        assert charts[title].to_dict()["autosize"]["type"] == "fit-x", title
    axis = charts["Per step: empty-cache"].to_dict()["layer"][0]["encoding"]["x"]["axis"]
    assert axis["labelOverlap"] is False  # all 30 marks keep their label


def test_a_training_step_s_held_mark_says_what_the_forward_saved_for_backward(result):
    """The "forward (activations held)" mark carries the saved bytes: its label on the curve
    and its tooltip (an older or forward-only run's marks keep their step label alone)."""
    held = [
        replace(s, event="forward (activations held)", saved_bytes=96 * MIB)
        for s in result.steps[:1]
    ]
    stepped = replace(result, steps=(*held, *result.steps))
    steps = fa.steps_frame(stepped)
    assert steps["saved_bytes"].iloc[0] == 96 * MIB and steps["saved_bytes"].iloc[1:].isna().all()
    chart = ca.timeline_chart(fa.trace_frame(stepped), fa.rss_frame(stepped), steps, ["why"])
    spec = chart.to_dict()
    texts = _layer(spec, spec["vconcat"][0]["vconcat"][0], "text")
    label = f"{held[0].label} · 96 MiB saved for backward"
    assert label in set(texts["text"]), set(texts["text"])
    assert set(texts["text"]) - {label} <= set(steps["label"])
    tips = [t.get("title") for x in _walk(spec) for t in x.get("encoding", {}).get("tooltip", [])]
    assert "saved for backward (MiB)" in tips
