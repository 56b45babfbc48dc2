"""The History page's compare view in AppTest: the picker, ?compare=, and what the view shows."""

from __future__ import annotations

import pytest
from apphelpers import open_page, widget
from comparedata import CPU_FUSION, CPU_STREAMS, h200_fusion, legacy_runs, stored, with_workload
from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df

from runtime_lab import ui

PAGE = "app_pages/history.py"
PICKER = "Runs to compare"


@pytest.fixture
def ids(app):
    """In the app's history: the CPU fusion run, the H200 one, a CPU streams run."""
    history = ui.manager().history
    runs = legacy_runs()
    cpu = history.add(stored(runs[CPU_FUSION]))
    gpu = history.add(h200_fusion(runs[CPU_FUSION]))
    streams = history.add(stored(runs[CPU_STREAMS]))
    return cpu, gpu, streams


def _picker(at):
    return next(m for m in at.multiselect if m.label.startswith(PICKER))


def _press(at, label):
    widget(at.button, label).click().run()
    assert not at.exception, at.exception


def _chart_runs(at) -> list[set[str]]:
    """The runs each drawn chart's data holds (Streamlit ships the datasets as Arrow)."""
    found = []
    for chart in at.get("vega_lite_chart"):
        assert "tooltip" in chart.proto.spec
        data = [convert_arrow_bytes_to_pandas_df(d.data.data) for d in chart.proto.datasets]
        found.append({run for frame in data for run in frame["run"]})
    return found


def test_picking_an_h200_and_a_cpu_run_shows_the_comparison(app, ids):
    cpu, gpu, _ = ids
    at = open_page(app, PAGE)
    _picker(at).set_value([cpu, gpu]).run()
    _press(at, "Compare")
    assert at.query_params["compare"] == f"{cpu},{gpu}"  # the comparison has a link
    (headline,) = [i.value for i in at.info]
    assert headline.startswith(f"measured speed-up (eager ÷ compiled) 0.46× in #{cpu} → ")
    assert (
        f"Biggest change: inductor achieved bandwidth: 102× higher (better) in #{gpu} than "
        f"#{cpu} (beyond noise)." in headline
    )
    assert "Fields that differ: " in headline and "GPU (CPU vs NVIDIA H200)" in headline
    assert "does not say which of them, if any, made the change" in headline
    diffs, figures = (d.value for d in at.dataframe[1:3])  # after the history list
    assert list(diffs.columns) == ["section", "field", f"#{cpu}", f"#{gpu}"]
    assert "GPU" in set(diffs["field"]) and "dtype" not in set(diffs["field"])
    eager = figures.set_index("figure").loc["eager steady-state time"]
    assert eager[f"#{gpu} noise"] == "beyond noise"
    assert eager[f"#{gpu} ÷ #{cpu}"] == "16.3× slower"  # the ratio's direction, in words
    # steady-state time, kernels per call, compile latency: each with both runs in it
    assert _chart_runs(at) == [{f"#{cpu}", f"#{gpu}"}] * 3
    assert not [s for s in at.selectbox if s.label == "Open run"]  # the comparison replaces it


def test_the_query_parameter_opens_a_comparison_and_close_ends_it(app, ids):
    cpu, gpu, _ = ids
    app.query_params["compare"] = f"{gpu},{cpu}"  # the H200 run is the baseline now
    at = open_page(app, PAGE)
    (headline,) = [i.value for i in at.info]
    assert f"lower (worse) in #{cpu} than #{gpu} (beyond noise)" in headline
    assert _picker(at).value == [gpu, cpu]
    _press(at, "Close comparison")
    assert "compare" not in at.query_params and not at.info
    assert [s for s in at.selectbox if s.label == "Open run"]


def test_bad_query_parameters_get_the_pages_message(app, ids):
    cpu, gpu, streams = ids
    cases = {
        f"{cpu},abc": "run ids are whole numbers",
        str(cpu): "at least 2",
        f"{cpu},999": "no run #999 in history",
        f"{cpu},{streams}": f"one experiment only (#{cpu} is fusion, #{streams} is streams)",
        ",".join(map(str, range(1, 8))): "at most 6",
    }
    at = open_page(app, PAGE)
    for value, message in cases.items():
        at.query_params["compare"] = value
        at.run()
        assert not at.exception, at.exception
        errors = [e.value for e in at.error]
        assert len(errors) == 1 and message in errors[0], (value, errors)
        assert not at.info  # no comparison drawn
        assert [s for s in at.selectbox if s.label == "Open run"]  # the page goes on


def test_the_picker_refuses_mixed_experiments_and_more_than_six(app, ids):
    cpu, gpu, streams = ids
    history = ui.manager().history
    more = [history.add(stored(legacy_runs()[CPU_FUSION])) for _ in range(5)]
    at = open_page(app, PAGE)
    _picker(at).set_value([cpu, streams]).run()
    _press(at, "Compare")
    assert [e.value for e in at.error] == [
        f"Can't compare: compare runs of one experiment only (#{cpu} is fusion, "
        f"#{streams} is streams)."
    ]
    _picker(at).set_value([cpu, gpu, *more]).run()
    _press(at, "Compare")
    assert [e.value for e in at.error] == ["Can't compare: compare at most 6 runs at once (got 7)."]
    assert "compare" not in at.query_params and not at.info


def test_runs_of_different_workloads_get_a_warning_above_the_headline(app, ids):
    cpu, _, _ = ids
    other = ui.manager().history.add(with_workload(legacy_runs()[CPU_FUSION], "softmax"))
    app.query_params["compare"] = f"{cpu},{other}"
    at = open_page(app, PAGE)
    assert not at.exception
    (warning,) = [w.value for w in at.warning]
    assert warning.startswith(f"Different workloads: #{cpu} ran pointwise, #{other} ran softmax.")
    assert len(at.info) == 1  # the headline, under the warning
    diffs = at.dataframe[1].value.set_index("field")
    assert diffs.loc["option workload", f"#{other}"] == "softmax"
    at.query_params["compare"] = f"{cpu},{ids[1]}"  # one workload: no warning
    at.run()
    assert not at.warning
