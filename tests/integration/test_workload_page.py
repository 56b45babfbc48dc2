"""AppTest of the fusion form's workload picker: it fills the shape, presets fill it, bad input."""

from apphelpers import open_page, widget

from runtime_lab import ui
from runtime_lab.workloads.registry import WORKLOADS


def _open(app):
    return open_page(app, "app_pages/fusion.py")


def _shape(at):
    return widget(at.text_input, "Shape").value


def test_choosing_a_workload_puts_its_shape_and_what_to_look_for_on_the_page(app):
    at = _open(app)
    picker = widget(at.selectbox, "Workload")
    assert picker.value == "pointwise" and "attention: Causal attention (SDPA)" in picker.options
    picker.set_value("attention").run()
    assert not at.exception
    work = WORKLOADS["attention"]
    gpu = bool(ui.manager().env.get("gpus"))
    assert _shape(at) == "x".join(map(str, work.default_shape if gpu else work.cpu_shape))
    assert any("SDPA dispatches" in c.value for c in at.caption)
    preset = widget(at.selectbox, "Preset shape")
    assert "llama3-8b-4k: 1x32x4096x128" in preset.options
    preset.set_value("llama3-8b-4k").run()
    assert _shape(at) == "1x32x4096x128"


def test_a_preset_fills_the_parameters_too(app):
    at = _open(app)
    widget(at.selectbox, "Workload").set_value("swiglu_mlp").run()
    widget(at.selectbox, "Preset shape").set_value("qwen2.5-7b-4k").run()
    assert _shape(at) == "4096x3584"
    assert widget(at.text_input, "params").value == "intermediate=18944"


def test_a_shape_with_the_wrong_dims_is_one_message_and_no_run(app):
    at = _open(app)
    widget(at.selectbox, "Workload").set_value("attention").run()
    widget(at.text_input, "Shape").set_value("256x256")
    at.button[0].click()
    at.run()
    assert not at.exception
    said = [e.value for e in at.error]
    assert any("attention takes 4: batch × heads × seq × head_dim" in e for e in said), said
    assert ui.manager().history.list() == []


def test_run_submits_the_chosen_workload(app):
    at = _open(app)
    widget(at.selectbox, "Workload").set_value("softmax").run()
    at.button[0].click()
    at.run()
    assert not at.exception
    assert at.query_params["workload"] == "softmax"
    assert at.query_params["shape"] == _shape(at)


def test_a_link_from_before_the_catalog_opens_its_workload(app):
    app.query_params["variant"] = "long-chain"
    at = _open(app)
    assert widget(at.selectbox, "Workload").value == "long-chain"
    assert not at.error
