"""A run's report in tabs (issue 27): Summary first, the experiment's own tabs by what each
item shows, Raw last; a metric's long value is never cut off (AppTest)."""

from __future__ import annotations

from fusiondata import result as fusion_result
from fusiondata import run as fusion_run
from streamlit.testing.v1 import AppTest


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
    assert len(tabs["Summary"].metric) == len(at.metric) > 0  # every metric in Summary
    assert any(t.startswith("Kernels per call") for t in _tab_titles(tabs["Kernels"]))
    timing = _tab_titles(tabs["Timing"])
    assert "Modes" in timing and any(t.startswith("Steady-state time") for t in timing)
    compile_tab = tabs["Compile"]
    assert any(t.startswith("Compile latency") for t in _tab_titles(compile_tab))
    assert [e.label for e in compile_tab.expander] == ["Generated code: inductor"]
    raw = tabs["Raw"]
    assert [e.label for e in raw.expander] == ["Provenance: inputs and environment"]
    assert [b.proto.label for b in raw.get("download_button")] == ["Run JSON", "Kernels CSV"]


def test_a_metric_value_with_a_detail_keeps_the_figure_whole():
    from runtime_lab import registry

    run = fusion_run(fusion_result())
    run["env"] = {}
    rep = registry.build_report(run)
    long = [m for m in rep.metrics if " (" in m.value]
    assert long, [m.value for m in rep.metrics]  # e.g. "92 % (cuda-graph)"
    at = AppTest.from_function(_draw, args=(run,), default_timeout=30)
    at.run()
    shown = {m.label: m.value for m in at.metric}
    captions = [c.value for c in at.tabs[0].caption]
    for metric in long:
        figure, _, detail = metric.value.partition(" (")
        assert shown[metric.label] == figure
        assert any(c.startswith("(" + detail[:10]) for c in captions), (detail, captions)
