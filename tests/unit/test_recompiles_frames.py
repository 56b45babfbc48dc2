"""Recompiles frames, charts and report from a hand-made result (no torch, no worker)."""

from dataclasses import replace

from recompilesdata import REASON
from recompilesdata import limited_mode as _limited
from recompilesdata import result as _result
from recompilesdata import run as _run
from recompilesdata import static_mode as _static

from runtime_lab import registry
from runtime_lab.recompiles.report import charts as cr
from runtime_lab.recompiles.report import frames as fr
from runtime_lab.recompiles.report.figures import figures, mode_order


def test_calls_frame_is_tidy_and_ordered():
    calls = fr.calls_frame(_result())
    assert len(calls) == 6 + 6 + 6 + 10
    assert mode_order(_result()) == ["dynamic=False", "dynamic=None", "dynamic=True", "bucketed"]
    static = calls[calls["mode"] == "dynamic=False"]
    assert list(static["label"])[:2] == ["1: 512x512", "2: 1024x1024"]
    assert list(static["compiled"]) == [True] * 5 + [False]
    assert static.iloc[5]["compile_id"] == "0/0"
    failed = calls[calls["event"] == "failed"]
    assert list(failed["compile_id"]) == ["— (eager)"] * 2


def test_totals_limit_and_reasons():
    totals = fr.totals_frame(_result(), figures(_result())).set_index("mode")
    assert totals.loc["dynamic=False", "unique_graphs"] == 5
    assert totals.loc["dynamic=None", "cache_hits"] == 4
    assert totals.loc["dynamic=True", "limit_status"] == "hit"
    assert totals.loc["bucketed", "padding_mb"] > 0
    limits = fr.limit_frame(_result(), figures(_result())).set_index("mode")
    assert limits.loc["dynamic=False", "status"] == "within"  # 5 of 8: below 75 %
    assert limits.loc["dynamic=False", "fraction"] == 5 / 8
    reasons = fr.reasons_frame(_result())
    assert REASON in set(reasons["guard_failure"])


def test_limit_status_thresholds():
    limits = fr.limit_frame(_result(), figures(_result())).set_index("mode")
    assert limits.loc["dynamic=None", "status"] == "within"
    assert fr.limit_status(replace(_static(), compiles=6)) == "near"  # 75 % of 8
    assert limits.loc["dynamic=True", "label"] == "8 / 8 · limit hit"


def test_bucketing_frames():
    per_call = fr.bucket_frame(_result())
    row = per_call[per_call["call"] == 4].iloc[0]
    assert row["padded_shape"] == "4096x4096" and row["padding_bytes"] == (4096**2 - 3000**2) * 12
    summary = fr.bucket_summary(fr.totals_frame(_result(), figures(_result())))
    assert list(summary["graphs"]) == [5, 4]


def test_charts_render_to_vega_lite():
    result = _result()
    calls = fr.calls_frame(result)
    fig = figures(result)
    order = list(fig.order)
    timeline = cr.timeline_chart(calls, order).to_dict()
    assert timeline["facet"]["row"]["field"] == "mode"
    assert cr.limit_chart(fr.limit_frame(result, fig)).to_dict()["layer"]
    assert cr.steady_chart(calls, order).to_dict()["layer"]


def test_report_shows_the_limit_as_a_warning_and_offers_downloads():
    rep = registry.build_report(_run(_result()))
    assert rep.headline.startswith("recompiles cuda:0 inductor, 6 calls: dynamic=False 5 graphs")
    assert rep.ok  # hitting the limit is a state of the run, not a failure of it
    assert rep.warnings == ("dynamic=True: " + _limited().limit_state,)
    metrics = {m.label: m.value for m in rep.metrics}
    assert metrics["dynamic=True: graphs"] == "8 · limit hit"
    assert metrics["item-branch variant: graphs · breaks"] == "2 · 1"
    assert metrics["fullgraph=True on it"] == "UserError"
    assert any("first recompile at call 2, because " + REASON in n for n in rep.notes)
    assert any(n.startswith("Bucketing to powers of two: 4 graphs instead of 5") for n in rep.notes)
    assert [d[0] for d in rep.downloads] == ["Run JSON", "Calls CSV", "Totals CSV", "Reasons CSV"]
    assert rep.code[0][0] == "Guards of the final frame (0/4): dynamic=False"
    assert len(rep.charts) == 3


def test_summary_keys():
    figures = registry.summary(_run(_result()))
    assert figures["unique_graphs"] == {
        "bucketed": 4,
        "dynamic=False": 5,
        "dynamic=None": 2,
        "dynamic=True": 8,
    }
    assert figures["recompile_reasons"]["dynamic=None"] == [REASON]
    assert figures["recompile_limit"]["dynamic=True"]["hit"] is True
    assert figures["graph_breaks"]["unique_graphs"] == 2
    assert figures["compile_s"]["dynamic=False"] == 4.0
