"""Every chart the lab draws, from recorded runs: a tooltip on every mark, PNG, SVG and CSV."""

import csv
import importlib
import io
import sys
from pathlib import Path

import altair as alt
import pandas as pd
import pytest
from allocatordata import MIB, workload_result
from allocatordata import ab_configs as _configs
from fusiondata import run as _fusion_run
from fusiondata import with_autotune, with_catalog, with_training
from fusiondata import with_clocks as _new
from fusiondata import with_resources as _resources_result
from legacydata import BEFORE
from legacydata import restore as _restore
from recompilesdata import result as _recompiles_result
from recompilesdata import run as _recompiles_run
from recompilesdata import whatif as _whatif
from streamlit.testing.v1 import AppTest

from runtime_lab import registry
from runtime_lab.ui import report as ui_report
from runtime_lab.view import export as chart_export

PKG = Path(registry.__file__).parent
PNG = b"\x89PNG\r\n\x1a\n"
FORMATS = ("PNG", "SVG", "CSV")


def _builders() -> set:
    """The *_chart functions of view/ and compare/ charts.py and of every experiment's report/."""
    paths = sorted([*PKG.glob("*/charts.py"), *PKG.glob("*/report/*.py")])
    names = [".".join(p.relative_to(PKG.parent).with_suffix("").parts) for p in paths]
    found = set()
    for module in map(importlib.import_module, names):
        found |= {
            fn
            for name, fn in vars(module).items()
            if name.endswith("_chart") and getattr(fn, "__module__", "") == module.__name__
        }
    return found


def _spy(mp: pytest.MonkeyPatch, builders: set, called: set) -> None:
    """Record every builder called, however a report module imported it."""

    def wrap(fn):
        def spy(*args, **kwargs):
            called.add(fn.__qualname__ + " in " + fn.__module__)
            return fn(*args, **kwargs)

        return spy

    wrappers = {fn: wrap(fn) for fn in builders}
    for module in [m for name, m in sys.modules.items() if name.startswith("runtime_lab")]:
        for name, value in list(vars(module).items()):
            if callable(value) and value in wrappers:
                mp.setattr(module, name, wrappers[value])


def _allocator_run(recorded: dict) -> dict:
    """A recorded allocator run given the configurations A/B, the outside-the-allocator steps and
    a catalog workload's peaks."""
    from dataclasses import replace

    from runtime_lab.allocator.run import outside as run_outside
    from runtime_lab.results import to_plain

    def reading(step, used_mib, reserved_mib):
        return {
            "step": step,
            "device_used_bytes": used_mib * MIB,
            "nvml_used_bytes": None,
            "reserved_bytes": reserved_mib * MIB,
            "allocated_bytes": 0,
        }

    steps = [reading("CUDA context", 600, 0), reading("first cuBLAS call", 650, 34)]
    outside = run_outside.parse(100 * MIB, {"steps": steps})
    result = registry.result_from_record("allocator", recorded["result"])
    result = replace(result, alloc_configs=_configs(), outside=outside)
    ce = workload_result()  # and a workload's eager vs compiled peaks, as CUDA measures them
    result = replace(result, workload=ce.workload, dims=ce.dims, peaks=ce.peaks)
    return {**recorded, "id": 9001, "result": to_plain(result)}


def _runs(data_dir: Path) -> list[dict]:
    """CPU runs of every experiment and two H200 runs (legacy history), plus hand-made CUDA-like
    fusion (three clocks; kernel resources; autotune choices; a training step), recompiles
    (limit hit; stance and CUDA graphs) and allocator (configurations A/B, outside the
    allocator) runs for the charts CPU runs lack."""
    history = _restore(data_dir)
    runs = [history.get(int(run_id)) for run_id in sorted(BEFORE, key=int)]
    fusion = [_fusion_run(_new()), _fusion_run(_resources_result()), _fusion_run(with_catalog())]
    fusion += [_fusion_run(with_autotune()), _fusion_run(with_training())]  # choices; by pass
    recompiles = [_recompiles_run(_recompiles_result()), _recompiles_run(_whatif())]
    allocator = next(r for r in runs if r["spec"]["experiment"] == "allocator")
    return [*runs, *fusion, *recompiles, _allocator_run(allocator)]


@pytest.fixture(scope="module")
def drawn(tmp_path_factory):
    builders, called, found = _builders(), set(), []
    with pytest.MonkeyPatch.context() as mp:
        _spy(mp, builders, called)
        for run in _runs(tmp_path_factory.mktemp("legacy")):
            name = f"run {run.get('id')} ({run['spec']['experiment']})"
            found += [(f"{name}: {t}", c) for t, c in registry.build_report(run).charts]
    every = {fn.__qualname__ + " in " + fn.__module__ for fn in builders}
    return every, called, found


def test_the_recorded_runs_draw_every_chart_builder(drawn):
    every, called, charts = drawn
    assert len(every) >= 20 and len(charts) >= 25
    assert every - called == set(), "no recorded run draws these"


def _marks(node, inherited=None, path="chart"):
    """(path, mark, has a tooltip) for every mark of a Vega-Lite spec; a layer's encoding is
    inherited by its layers, a facet's spec and concat panels are walked too."""
    if isinstance(node, list):
        for i, child in enumerate(node):
            yield from _marks(child, inherited, f"{path}[{i}]")
        return
    if not isinstance(node, dict):
        return
    encoding = {**(inherited or {}), **(node.get("encoding") or {})}
    if "mark" in node:
        mark = node["mark"] if isinstance(node["mark"], dict) else {"type": node["mark"]}
        tip = encoding.get("tooltip") or mark.get("tooltip")
        yield path, mark["type"], bool(tip)
    for key in ("layer", "hconcat", "vconcat", "concat", "spec"):
        if key in node:
            yield from _marks(node[key], encoding if key == "layer" else None, f"{path}.{key}")


def test_the_tooltip_walk_sees_a_bare_mark():
    bare = alt.Chart(pd.DataFrame({"x": [1]})).mark_text().encode(x="x:Q", text="x:Q")
    tipped = bare.encode(tooltip=[alt.Tooltip("x:Q")])
    spec = alt.vconcat(alt.layer(tipped, bare), tipped.facet(row="x:N")).to_dict()
    assert [has for _, _, has in _marks(spec)] == [True, False, True]
    layered = alt.layer(bare, bare.mark_point()).encode(tooltip=["x:Q"]).to_dict()
    assert [has for _, _, has in _marks(layered)] == [True, True]  # inherited from the layer


def test_every_mark_has_a_tooltip(drawn):
    _, _, charts = drawn
    bare = [
        f"{title} → {path} ({mark})"
        for title, chart in charts
        for path, mark, has in _marks(chart.to_dict())
        if not has
    ]
    assert bare == []


def test_every_chart_renders_as_svg_and_png(drawn):
    assert chart_export.unavailable() is None
    _, _, charts = drawn
    for title, chart in charts:
        svg = chart_export.to_svg(chart)
        assert svg.lstrip().startswith("<svg") and svg.rstrip().endswith("</svg>"), title
        png = chart_export.svg_to_png(svg)  # to_png's last step, on the SVG just made
        assert png.startswith(PNG) and len(png) > 1000, title
    title, chart = charts[0]
    assert chart_export.to_png(chart) == png_of_first(charts), title


def png_of_first(charts) -> bytes:
    """vl-convert's own PNG path for the first chart: to_png's SVG route gives the same bytes."""
    import vl_convert

    spec = chart_export._spec(charts[0][1])
    return vl_convert.vegalite_to_png(spec, scale=chart_export.PNG_SCALE, allowed_base_urls=[])


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def test_every_chart_has_its_data_as_csv(drawn):
    _, _, charts = drawn
    for title, chart in charts:
        parts = chart_export.frames(chart)
        header, *rows = _rows(chart_export.to_csv(chart))
        assert parts and sum(len(f) for _, f in parts) > 0, title
        assert len(rows) == sum(len(f) for _, f in parts), title
        columns = {str(c) for _, f in parts for c in f.columns}
        assert set(header) == columns | ({"drawn_as"} if len(parts) > 1 else set()), title


def test_layered_data_is_stacked_with_the_marks_that_drew_it():
    samples = pd.DataFrame({"label": ["a", "a", "b"], "time_ms": [1.0, 2.0, 3.0]})
    summary = pd.DataFrame({"label": ["a", "b"], "median_ms": [1.5, 3.0]})
    ticks = alt.Chart(samples).mark_tick().encode(x="time_ms:Q", y="label:N")
    bars = alt.Chart(summary).mark_bar().encode(x="median_ms:Q", y="label:N")
    text = alt.Chart(summary).mark_text().encode(x="median_ms:Q", y="label:N", text="label:N")
    table = pd.read_csv(io.StringIO(chart_export.to_csv(alt.layer(ticks, bars, text))))
    assert list(table.columns) == ["drawn_as", "label", "time_ms", "median_ms"]
    assert list(table["drawn_as"]) == ["tick"] * 3 + ["bar+text"] * 2
    assert table["median_ms"].dropna().tolist() == [1.5, 3.0]
    single = chart_export.to_csv(ticks.facet(row="label:N"))
    assert _rows(single) == [["label", "time_ms"], ["a", "1.0"], ["a", "2.0"], ["b", "3.0"]]


def test_a_plot_without_width_is_exported_at_the_export_width():
    chart = alt.Chart(pd.DataFrame({"x": [1, 2]})).mark_bar().encode(x="x:Q")
    assert chart_export._spec(chart)["width"] == chart_export.EXPORT_WIDTH
    assert chart_export._spec(chart.properties(width=200))["width"] == 200
    assert "width" not in chart_export._spec(alt.vconcat(chart, chart))


def test_file_stem_is_a_safe_name():
    stem = chart_export.file_stem("Per step: sequence (µs, ◆ median)", 7)
    assert stem == "run-7-per-step-sequence-s-median"
    assert chart_export.file_stem("◆", None) == "run-latest-chart"


def test_without_vl_convert_the_reason_is_given(monkeypatch):
    assert chart_export.unavailable.__wrapped__() is None
    import vl_convert

    def broken(*args, **kwargs):
        raise ValueError("no JavaScript runtime")

    monkeypatch.setattr(vl_convert, "vegalite_to_svg", broken)
    assert chart_export.unavailable.__wrapped__() == "ValueError: no JavaScript runtime"
    monkeypatch.setitem(sys.modules, "vl_convert", None)  # the import itself fails
    assert chart_export.unavailable.__wrapped__().startswith("ModuleNotFoundError")


def _draw(runs):
    from runtime_lab import ui

    for run in runs:
        ui.draw(run)


def _draw_and_click(run, stem):
    """Draw a run, then do what clicking the buttons whose file starts with `stem` does."""
    import streamlit as st
    from streamlit import runtime

    from runtime_lab import ui

    ui.draw(run)
    deferred = runtime.get_instance().media_file_mgr._deferred_callables  # no public listing
    st.session_state["files"] = {
        e["filename"]: (e["mimetype"], e["callable"]() if e["filename"].startswith(stem) else None)
        for e in deferred.values()
    }


def test_a_drawn_report_offers_each_chart_as_png_svg_and_csv():
    first, second = _fusion_run(_new()), _fusion_run(_new())
    second["id"] = 8  # two runs on one page, as on the history page: keys must not collide
    at = AppTest.from_function(_draw, args=([first, second],), default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    count = len(registry.build_report(first).charts)
    assert len(at.get("vega_lite_chart")) == 2 * count >= 7
    buttons = [b for b in at.get("download_button") if b.proto.label in FORMATS]
    assert [b.proto.label for b in buttons] == list(FORMATS) * 2 * count
    keys = [
        f"chart-{run}-None-{n}-{f.lower()}" for run in (7, 8) for n in range(count) for f in FORMATS
    ]
    # each chart's three files under a key of its own (drawn in tab order, not chart order)
    assert sorted(b.proto.id.split("-", 2)[-1] for b in buttons) == sorted(keys)
    assert all(b.proto.icon == ":material/download:" and b.proto.ignore_rerun for b in buttons)
    others = [b.proto.label for b in at.get("download_button") if b.proto.label not in FORMATS]
    assert others == ["Run JSON", "Kernels CSV"] * 2


def test_a_click_makes_the_file_then():
    run = _fusion_run(_new())
    title, chart = registry.build_report(run).charts[0]
    stem = chart_export.file_stem(title, 7)
    at = AppTest.from_function(_draw_and_click, args=(run, stem), default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    files = at.session_state["files"]
    assert len(files) == 3 * len(at.get("vega_lite_chart"))  # made lazily: not one yet
    assert files[f"{stem}.png"][0] == "image/png" and files[f"{stem}.png"][1].startswith(PNG)
    assert files[f"{stem}.svg"] == ("image/svg+xml", chart_export.to_svg(chart))
    assert files[f"{stem}.csv"] == ("text/csv", chart_export.to_csv(chart))


def test_without_images_each_chart_offers_its_csv_and_says_why(monkeypatch):
    monkeypatch.setattr(ui_report.chart_export, "unavailable", lambda: "ImportError: no vl_convert")
    at = AppTest.from_function(_draw, args=([_fusion_run(_new())],), default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    charts = len(at.get("vega_lite_chart"))
    labels = [b.proto.label for b in at.get("download_button")]
    assert [label for label in labels if label in FORMATS] == ["CSV"] * charts
    why = [c.value for c in at.caption if "vl-convert failed: ImportError" in c.value]
    assert len(why) == charts
