"""Streams report, frames, charts and CLI summary from a run recorded on the H200; the page on CPU."""

import dataclasses
import gzip
import json
import time
from pathlib import Path

import pytest
from apphelpers import open_page, poll_until, widget
from streamlit.testing.v1 import AppTest

from runtime_lab import registry, ui
from runtime_lab.registry import result_from_record
from runtime_lab.streams.info import STREAM_VARIANTS
from runtime_lab.streams.report import charts as cs
from runtime_lab.streams.report import figures as streams_summary
from runtime_lab.streams.report import frames as fs
from runtime_lab.streams.report.headline import error_text
from runtime_lab.streams.result import HIDDEN_DEPENDENCY_LABEL
from runtime_lab.ui.results import CHART_LABELS as CHARTS

RUN = Path(__file__).parents[1] / "fixtures" / "h200" / "streams-run.json.gz"


@pytest.fixture
def run():
    data = json.loads(gzip.decompress(RUN.read_bytes()))
    data["result"]["trace_file"] = None  # the H200's path: not on this machine
    return data


def _result(run):
    return result_from_record("streams", run["result"])


def test_stored_run_rebuilds_typed_result(run):
    result = _result(run)
    assert [v.variant for v in result.variants] == list(STREAM_VARIANTS)
    correct = result.variants[0]
    assert correct.timeline.kernels and correct.timeline.kernels[0].lane in {"default", "side"}
    assert {c.label for c in result.overlap} == {"small kernels", "GPU-filling"}


def test_frames_are_tidy_and_bounded(run):
    result = _result(run)
    fig = streams_summary.figures(result)
    variants = fs.variants_frame(result, fig)
    assert list(variants["variant"]) == list(STREAM_VARIANTS)
    ordered = variants[variants["guaranteed"] == "ordered"]
    assert (ordered["mismatches"] == 0).all() and (ordered["worst_abs_diff"] == 0).all()
    rows = fs.variant_timelines(result)
    assert set(rows["section"]) == set(STREAM_VARIANTS)
    assert {"kernel", "host call", "record", "wait"} <= set(rows["kind"])
    assert (rows["end_us"] >= rows["start_us"]).all()
    overlap = fs.overlap_frame(result, fig).set_index("case")
    assert overlap.loc["small kernels", "overlap_pct"] > overlap.loc["GPU-filling", "overlap_pct"]
    assert len(fs.trial_diffs_frame(result)) == 20 * len(STREAM_VARIANTS)


def test_timeline_rows_are_thinned_to_the_bound(run):
    timeline = _result(run).overlap[1].timeline
    many = dataclasses.replace(timeline, kernels=timeline.kernels * 200)
    rows = fs.timeline_rows("big", many)
    assert len(rows) == fs.MAX_TIMELINE_ROWS
    assert set(rows[rows["kind"] != "kernel"]["kind"]) == set(
        fs.timeline_rows("big", timeline).query("kind != 'kernel'")["kind"]
    )


def test_report_headline_metrics_charts(run):
    rep = registry.build_report(run)
    assert rep.ok and rep.headline.startswith(
        "The side-stream matmul ordered by events (correct) matched the default-stream "
        "reference exactly in all 20 trials"
    )
    # what the ordering mistakes showed, the reason they ran
    assert rep.headline.endswith(
        " · the 3 ordering mistakes gave wrong results in 20/20 (missing-producer-wait), 20/20 "
        "(missing-consumer-wait) and 14/20 (early-free) trials"
    )
    labels = [m.label for m in rep.metrics]
    assert all(f"{v}: wrong results" in labels for v in STREAM_VARIANTS)
    assert "host: done.synchronize()" in labels and "Event.elapsed_time vs harness" in labels
    titles = [t for t, _ in rep.charts]
    assert any(t.startswith("Per-stream timeline") for t in titles)
    assert "Overlap: two streams vs one" in titles and "Host vs device on one time axis" in titles
    for _, chart in rep.charts:
        spec = chart.to_dict()  # valid Vega-Lite, under Altair's row limit
        assert spec["$schema"].startswith("https://vega.github.io/schema/vega-lite")
    assert [d[0] for d in rep.downloads] == ["Run JSON", "Timeline CSV", "Samples CSV"]
    assert any(n.startswith("Lanes are the lab's own streams") for n in rep.notes)


def test_clean_broken_variant_says_a_clean_run_proves_nothing(run):
    for v in run["result"]["variants"]:
        if v["variant"] == "missing-consumer-wait":
            v["mismatches"] = 0
    notes = registry.build_report(run).notes
    assert any(
        "does not prove the absence of a race" in n and "missing-consumer-wait" in n for n in notes
    )


def test_wrong_ordered_variant_fails_the_report(run):
    run["result"]["variants"][0]["mismatches"] = 3
    rep = registry.build_report(run)
    assert not rep.ok and any("bug worth reporting" in n for n in rep.notes)


def test_chrome_trace_download_when_the_file_exists(run, tmp_path):
    trace = tmp_path / "t.json"
    trace.write_text('{"traceEvents": []}')
    run["result"]["trace_file"] = str(trace)
    downloads = {d[0]: d for d in registry.build_report(run).downloads}
    assert downloads["Chrome trace (Perfetto)"][2] == trace.read_bytes()


def test_cli_summary_keys(run):
    summary = registry.summary(run)
    assert {"max_abs_diff", "mismatches", "trials", "lanes", "overlap_pct"} <= set(summary)
    assert summary["variant"] == "correct" and summary["trials"] == 20
    assert summary["max_abs_diff"] == 0.0 and summary["lanes"] == ["default", "side"]
    assert summary["variants"]["early-free"]["reused_block"] > 0
    assert streams_summary.primary(_result(run)).variant == "correct"


def _draw(run):
    from runtime_lab import ui

    ui.draw(run)


def test_h200_run_draws_on_a_cpu_machine(run):
    at = AppTest.from_function(_draw, args=(run,), default_timeout=30)
    at.run()
    assert not at.exception, at.exception
    assert at.success[0].value.startswith("The side-stream matmul ordered by events")
    assert len(at.get("vega_lite_chart")) >= 8
    assert [b.proto.label for b in at.get("download_button") if b.proto.label not in CHARTS] == [
        "Run JSON",
        "Timeline CSV",
        "Samples CSV",
    ]


def test_streams_page_on_cpu_explains_cuda_and_draws_no_timeline(app):
    deadline = time.monotonic() + 120
    while not ui.manager().env and time.monotonic() < deadline:
        time.sleep(0.2)  # the worker reports the environment once it has started
    at = open_page(app, "app_pages/streams.py")
    assert any("CUDA-only" in m.value for m in at.info)
    labels = [w.label for w in at.multiselect] + [w.label for w in at.number_input]
    assert "variant" in labels and "trials" in labels and "delay_us" in labels
    widget(at.text_input, "Shape").set_value("64x64")
    widget(at.selectbox, "Device").set_value("cpu")
    at.button[0].click()
    at.run()
    # green, or amber where the CPU's timing of the matmul is noisy or contended
    at = poll_until(at, lambda a: a.success or a.warning or a.error)
    said = [box.value for box in (*at.success, *at.warning)]
    assert said[0].startswith(
        "No CUDA streams on this CPU: the matmul ran on the host twice and the results matched "
        "exactly"
    ), said
    assert any("need CUDA and were not run" in c.value for c in at.caption)
    assert len(at.get("vega_lite_chart")) == 1  # the timing chart only: no fake timeline
    run = ui.manager().history.list()[0]
    assert run["experiment"] == "streams" and run["status"] == "done"


def _with_hidden_case(run, overlap_pct=4.0):
    """The H200 run with a hand-made hidden-dependency case after the small-kernels one."""
    cases = run["result"]["overlap"]
    small = next(c for c in cases if c["label"] == "small kernels")
    hidden = {
        **small,
        "label": HIDDEN_DEPENDENCY_LABEL,
        "concurrent_ms": [2 * v for v in small["concurrent_ms"]],
        "overlap_pct": overlap_pct,
        "serial_timeline": None,
        "hidden_dependency": True,
    }
    cases.insert(cases.index(small) + 1, hidden)
    return run


def test_hidden_dependency_case_sits_next_to_the_real_overlap(run):
    result = _result(_with_hidden_case(run))
    assert [c.hidden_dependency for c in result.overlap] == [False, True, False]
    overlap = fs.overlap_frame(result, streams_summary.figures(result))
    assert list(overlap["case"]) == ["small kernels", HIDDEN_DEPENDENCY_LABEL, "GPU-filling"]
    row = overlap.set_index("case").loc[HIDDEN_DEPENDENCY_LABEL]
    assert row["overlap_pct"] == 4.0 and row["wall_gain_pct"] < 0  # slower than one stream
    sections = set(fs.overlap_timelines(result)["section"])
    assert f"{HIDDEN_DEPENDENCY_LABEL}: two streams" in sections
    assert f"{HIDDEN_DEPENDENCY_LABEL}: one stream" not in sections  # shared with small kernels
    chart = cs.overlap_chart(overlap).to_dict()
    assert chart["facet"]["column"]["sort"] == list(overlap["case"])
    shown = {r["case"] for r in chart["datasets"][chart["data"]["name"]]}
    assert HIDDEN_DEPENDENCY_LABEL in shown


def test_hidden_dependency_case_in_report_and_summary(run):
    rep = registry.build_report(_with_hidden_case(run))
    metrics = {m.label: m for m in rep.metrics}
    hidden = metrics[f"overlap, {HIDDEN_DEPENDENCY_LABEL} (512²)"]
    assert hidden.value == "4 %" and "wait_stream(default)" in hidden.help
    assert metrics["overlap, small kernels (512²)"].value == "77 %"
    assert sum("wait_stream(default)" in n for n in rep.notes) == 1
    assert any(t == "Overlap: two streams vs one" for t, _ in rep.charts)
    assert [t for t, _ in rep.tables if t == "Overlap"]
    summary = registry.summary(_with_hidden_case(run, overlap_pct=None))
    assert summary["overlap_hidden_dependency_pct"] is None
    summary = registry.summary(_with_hidden_case(run))
    assert summary["overlap_hidden_dependency_pct"] == 4.0
    assert summary["overlap_pct"][HIDDEN_DEPENDENCY_LABEL] == 4.0


def test_runs_without_the_hidden_case_show_and_say_nothing_of_it(run):
    assert "overlap_hidden_dependency_pct" not in registry.summary(run)
    rep = registry.build_report(run)
    assert not any("wait_stream(default)" in n for n in rep.notes)
    assert not any(HIDDEN_DEPENDENCY_LABEL in m.label for m in rep.metrics)


def test_metrics_and_tables_quote_the_same_figures(run):
    rep = registry.build_report(run)
    metrics, tables = {m.label: m for m in rep.metrics}, dict(rep.tables)
    overlap = tables["Overlap"]
    assert len(overlap) == 2
    for row in overlap.itertuples():
        gain = f"wall gain two streams vs one: {row.wall_gain_pct:.1f} %"
        assert gain in metrics[f"overlap, {row.case} ({row.size}²)"].help
    hosts = tables["Host calls"]
    assert len(hosts) >= 2
    for row in hosts.itertuples():
        assert metrics[f"host: {row.call}"].value == f"{row.host_us_median:,.1f} µs"
    worst = tables["Orderings"].set_index("variant")["max |side − reference|"]
    for variant, value in worst.items():
        said = f"max |side − reference| {error_text(value)}"
        assert said in metrics[f"{variant}: wrong results"].help
