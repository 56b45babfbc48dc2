"""AppTest for app_pages/fusion.py: the form's option widgets, a bad sweep refused, a report drawn."""

from pathlib import Path

from apphelpers import open_page, widget
from fusiondata import result as _result
from fusiondata import run as _run
from streamlit.testing.v1 import AppTest

from runtime_lab import ui
from runtime_lab.env import gpu_likely
from runtime_lab.options import form_defaults
from runtime_lab.registry import EXPERIMENTS
from runtime_lab.ui.results import CHART_LABELS as CHARTS

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _open(at):
    return open_page(at, "app_pages/fusion.py")


def test_fusion_form_has_every_option(app):
    at = _open(app)
    assert at.title[0].value == "Fusion & compile"
    env = ui.manager().env  # before the worker's hello the form guesses as gpu_likely() does
    defaults = form_defaults(EXPERIMENTS["fusion"], bool(env.get("gpus")) if env else gpu_likely())
    assert widget(at.text_input, "Shape").value == defaults["shape"]
    modes = widget(at.multiselect, "modes")
    assert modes.value == defaults["modes"].split(",")
    assert "inductor-max-autotune-no-cudagraphs" in modes.options
    assert widget(at.selectbox, "dynamic").value == "auto"
    assert widget(at.checkbox, "fullgraph").value is True
    assert widget(at.checkbox, "fresh_process").value is False
    assert widget(at.text_input, "sweep").value == ""


def test_controls_that_do_nothing_for_this_workload_or_machine_are_off(app):
    at = _open(app)
    assert not ui.manager().env.get("gpus")  # the replay machine: a CPU
    modes = widget(at.multiselect, "modes")
    assert "cuda-graph" not in modes.options and "cuda-graph-inductor" not in modes.options
    assert not widget(at.checkbox, "fresh_process").disabled  # pointwise: it acts
    widget(at.selectbox, "Workload").set_value("rms_norm").run()
    fresh = widget(at.checkbox, "fresh_process")
    assert fresh.disabled and "acts on pointwise only, not on rms_norm" in fresh.help
    captions = " ".join(c.value for c in at.caption)
    assert "Off here (hover for why): fresh_process, mega_cache." in captions
    assert "modes cuda-graph, cuda-graph-inductor" in captions


def test_bad_sweep_is_a_message_not_a_run(app):
    at = _open(app)
    widget(at.text_input, "sweep").set_value("1,2,x")
    at.button[0].click()
    at.run()
    assert not at.exception
    assert any("sweep" in e.value and "not a size list" in e.value for e in at.error)
    assert "job:fusion" not in at.session_state
    assert ui.manager().history.list() == []


def _draw(run):
    from runtime_lab import ui

    ui.draw(run)


def test_a_fusion_report_draws_charts_tables_code_and_downloads():
    run = _run(_result())
    run["env"] = {}
    at = AppTest.from_function(_draw, args=(run,), default_timeout=30)
    at.run()
    assert not at.exception, at.exception
    assert at.success[0].value.startswith("fusion cuda:0 4096x4096 float32: inductor 1 kernel")
    assert len(at.get("vega_lite_chart")) == 6
    # Summary's collapsed Notes first, then the Compile tab's code
    assert [e.label for e in at.expander][:2] == ["Notes", "Generated code: inductor"]
    assert at.code[0].language == "python"
    labels = [b.proto.label for b in at.get("download_button") if b.proto.label not in CHARTS]
    assert labels == ["Run JSON", "Kernels CSV"]
