"""AppTest for app_pages/allocator.py: the form from the catalog, a CPU run, a CUDA report drawn."""

import pytest
from allocatordata import result as _result
from allocatordata import run as _run
from apphelpers import open_page, poll_until, widget
from streamlit.testing.v1 import AppTest

from runtime_lab import ui
from runtime_lab.registry import EXPERIMENTS
from runtime_lab.ui.results import CHART_LABELS as CHARTS

OPTIONS = EXPERIMENTS["allocator"].options


def _open(at):
    return open_page(at, "app_pages/allocator.py")


def test_form_has_the_sequence_and_the_scenarios(app):
    at = _open(app)
    assert at.title[0].value == "Allocator"
    assert widget(at.text_area, "shapes").value == (
        "1024x1024,4096x4096,2048x2048,8192x8192,1024x1024,4096x4096"
    )
    # the replay machine has no GPU: the scenarios that need CUDA are not offered, the controls
    # that only act on CUDA are off, and the form says which and why
    scenarios = widget(at.multiselect, "scenarios")
    assert scenarios.value == ["sequence", "compiled"]
    assert scenarios.options == ["sequence", "compiled"]
    assert widget(at.number_input, "compare_side").value == 8192
    rounds = widget(at.number_input, "rounds")
    assert rounds.value == 5 and rounds.disabled and "needs CUDA" in rounds.help
    assert widget(at.checkbox, "alloc_ab").disabled and widget(at.checkbox, "outside").disabled
    captions = " ".join(c.value for c in at.caption)
    assert "Off here (hover for why): rounds, alloc_ab, outside, max_entries." in captions
    assert "scenarios empty-cache, side-stream, cudagraphs" in captions


def test_no_scenario_is_refused_with_the_field_named(app):
    at = _open(app)
    widget(at.multiselect, "scenarios").set_value([])
    at.button[0].click()
    at.run()
    errors = [e.value for e in at.error]
    assert any(e.startswith("**scenarios**") and "nothing chosen" in e for e in errors), errors
    assert ui.manager().history.list() == []


@pytest.mark.slow
def test_a_cpu_run_draws_host_memory_and_says_what_needs_cuda(worker_app):
    at = _open(worker_app)
    widget(at.text_area, "shapes").set_value("128x128,512x512,128x128")
    widget(at.multiselect, "scenarios").set_value(["sequence"])
    widget(at.selectbox, "Device").set_value("cpu")
    at.button[0].click()
    at.run()
    poll_until(at, lambda a: len(a.success) > 0)
    head = (
        "pointwise (rows × cols) float32 on CPU: a CPU has no caching allocator, so its curves "
        "(allocated, reserved, what empty_cache() returns) need CUDA. Host RSS instead: the "
    )
    assert at.success[0].value.startswith(head) and " step peaked " in at.success[0].value
    assert len(at.get("vega_lite_chart")) == 3  # RSS over time, RSS per step, the job's timeline
    captions = " ".join(c.value for c in at.caption)
    assert "need CUDA" in captions
    labels = [b.proto.label for b in at.get("download_button") if b.proto.label not in CHARTS]
    assert labels == ["Run JSON", "Curves CSV", "Steps CSV"]
    assert len(ui.manager().history.list()) == 1


def _draw(run):
    from runtime_lab import ui

    ui.draw(run)


def test_a_cuda_report_shows_the_facts_and_the_warnings():
    at = AppTest.from_function(_draw, args=(_run(_result()),), default_timeout=30)
    at.run()
    assert not at.exception, at.exception
    assert at.success[0].value.startswith(
        "pointwise float32 on cuda:0: the caching allocator still held 340 MiB reserved"
    )
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["after last del: allocated · reserved"] == "0 B · 340 MiB"
    assert metrics["reserved after empty_cache"] == "0 B"
    assert len(at.get("vega_lite_chart")) == 4
    assert "hit max_entries" in at.warning[0].value
    tables = [m.value for m in at.markdown if m.value.startswith("**")]
    assert "**Bytes per stream**" in tables


def test_choosing_a_workload_runs_the_sequence_over_it(app):
    at = _open(app)
    picker = widget(at.selectbox, "Workload")
    assert picker.value == "pointwise"  # the seed's function stays the default
    picker.set_value("rms_norm").run()
    assert not at.exception
    assert any("Llama's RMSNorm upcasts" in c.value for c in at.caption)
    widget(at.text_area, "shapes").set_value("32x256,64x256,32x256")
    widget(at.multiselect, "scenarios").set_value(["sequence", "compiled"])
    widget(at.selectbox, "Device").set_value("cpu")
    at.button[0].click()
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.query_params["workload"] == "rms_norm"
    (stored,) = ui.manager().history.list()
    spec = ui.manager().history.get(stored["id"]).spec
    assert spec["options"]["workload"] == "rms_norm"
    assert spec["options"]["shapes"] == "32x256,64x256,32x256"
