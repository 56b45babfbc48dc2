"""A run's report in tabs (issue 27): Summary first, the experiment's own tabs by what each
item shows, Raw last; a metric's long value is never cut off (AppTest)."""

from __future__ import annotations

from fusiondata import result as fusion_result
from fusiondata import run as fusion_run
from streamlit.testing.v1 import AppTest

from runtime_lab import registry


def _draw(run):
    from runtime_lab import ui

    ui.draw(run)


def _tab_titles(tab) -> list[str]:
    return [m.value.strip("*") for m in tab.markdown if m.value.startswith("**")]


def test_a_fusion_report_is_in_tabs_by_what_each_item_shows():
    run = fusion_run(fusion_result())
    run["env"] = {}
    at = AppTest.from_function(_draw, args=(run,), default_timeout=30)
    at.run()
    assert not at.exception, at.exception
    tabs = {t.label: t for t in at.tabs}
    assert list(tabs) == ["Summary", "Kernels", "Timing", "Compile", "Raw"]
    assert at.success[0].value.startswith("fusion cuda:0")  # the headline above the tabs
    # Summary: the key figures (at most 8); Raw: every metric of the report, the rest of them
    assert 0 < len(tabs["Summary"].metric) <= 8
    assert len(tabs["Raw"].metric) == len(registry.build_report(run).metrics)
    assert any(t.startswith("Kernels per call") for t in _tab_titles(tabs["Kernels"]))
    assert "Modes" in _tab_titles(tabs["Timing"])
    # the chart that shows the headline's claim is drawn once, in Summary
    assert [t for t in _tab_titles(tabs["Summary"]) if t.startswith("Steady-state time")]
    compile_tab = tabs["Compile"]
    assert any(t.startswith("Compile latency") for t in _tab_titles(compile_tab))
    assert [e.label for e in compile_tab.expander] == ["Generated code: inductor"]
    raw = tabs["Raw"]
    assert [e.label for e in raw.expander] == ["Provenance: inputs and environment"]
    assert [b.proto.label for b in raw.get("download_button")] == ["Run JSON", "Kernels CSV"]


def test_a_metric_value_with_a_detail_keeps_the_figure_whole():
    run = fusion_run(fusion_result())
    run["env"] = {}
    rep = registry.build_report(run)
    long = [m for m in rep.metrics if " (" in m.value]
    assert long, [m.value for m in rep.metrics]  # e.g. "92 % (cuda-graph)"
    at = AppTest.from_function(_draw, args=(run,), default_timeout=30)
    at.run()
    shown = {m.label: m.value for m in at.metric}
    captions = [c.value for c in at.caption]
    for metric in long:
        figure, _, detail = metric.value.partition(" (")
        assert shown[metric.label] == figure
        assert any(c.startswith("(" + detail[:10]) for c in captions), (detail, captions)
