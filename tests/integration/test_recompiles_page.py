"""AppTest for app_pages/recompiles.py: the sequence box and presets, a bad sequence refused, a run."""

import pytest
from apphelpers import open_page, poll_until, widget
from recompilesdata import result as _result
from recompilesdata import run as _run
from recompilesdata import whatif as _whatif
from streamlit.testing.v1 import AppTest

from runtime_lab import ui
from runtime_lab.env import gpu_likely
from runtime_lab.options import form_defaults
from runtime_lab.registry import EXPERIMENTS
from runtime_lab.shapes import preset
from runtime_lab.ui.results import CHART_LABELS as CHARTS
from runtime_lab.ui.suggest import BUTTON

# what the form starts from: this machine's defaults (CPU ones without a GPU)
DEFAULT = form_defaults(EXPERIMENTS["recompiles"], gpu_likely())["shapes"]


def _open(at):
    return open_page(at, "app_pages/recompiles.py")


def test_form_has_the_sequence_box_and_no_main_shape(app):
    at = _open(app)
    assert at.title[0].value == "Shapes & recompiles"
    assert widget(at.text_area, "shapes").value == DEFAULT
    assert not [w for w in at.text_input if w.label == "Shape"]  # ignored here, so not asked
    modes = widget(at.multiselect, "modes")
    assert modes.value == ["dynamic=False", "dynamic=None", "dynamic=True", "mark_dynamic"]
    assert widget(at.text_input, "dims").value == "auto"  # pointwise: rows, cols, as before
    assert widget(at.selectbox, "Workload").value == "pointwise"
    assert widget(at.selectbox, "backend").value == "inductor"
    assert widget(at.number_input, "recompile_limit").value == 8
    assert widget(at.checkbox, "fullgraph").value is False


def test_a_preset_fills_the_box(app):
    at = _open(app)
    widget(at.selectbox, "Preset for shapes").set_value("growing-batch")
    at.run()
    assert widget(at.text_area, "shapes").value == preset("growing-batch")
    widget(at.selectbox, "Preset for shapes").set_value("random")
    widget(at.number_input, "Preset seed").set_value(7)
    at.run()
    assert widget(at.text_area, "shapes").value == preset("random", 7)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("512x512,12y5", "shape 2 ('12y5')"), ("", "is empty"), ("8x8:int8", "dtype 'int8'")],
)
def test_invalid_sequence_is_a_message_naming_the_field(app, text, fragment):
    at = _open(app)
    widget(at.text_area, "shapes").set_value(text)
    at.button[0].click()
    at.run()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert any(e.startswith("**shapes**") and fragment in e for e in errors), errors
    assert "job:recompiles" not in at.session_state
    assert ui.manager().history.list() == []


@pytest.mark.slow
def test_a_cpu_run_draws_the_report(worker_app):
    at = _open(worker_app)
    widget(at.text_area, "shapes").set_value("64x64,128x128,64x64:float16")
    widget(at.selectbox, "Device").set_value("cpu")
    widget(at.selectbox, "backend").set_value("eager")
    widget(at.number_input, "Timed calls").set_value(3)
    at.button[0].click()
    at.run()
    poll_until(at, lambda a: len(a.success) > 0)
    assert at.success[0].value.startswith(
        "recompiles pointwise (rows × cols) CPU eager, 3 calls along rows, cols: dynamic=False 3"
    )
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["dynamic=True: graphs"] == "2"  # the float16 call recompiles
    assert metrics["item-branch variant: graphs · breaks"] == "2 · 1"
    assert len(at.get("vega_lite_chart")) == 4  # and the job's timeline in the Raw tab
    assert any("dtype mismatch" in c.value for c in at.caption)


def _draw(run):
    from runtime_lab import ui

    ui.draw(run)


def test_a_report_with_a_limit_hit_shows_a_warning():
    run = _run(_result())
    at = AppTest.from_function(_draw, args=(run,), default_timeout=30)
    at.run()
    assert not at.exception, at.exception
    assert at.success[0].value.startswith("recompiles cuda:0 inductor, 6 calls")
    assert "hit recompile_limit (8) at call 9" in at.warning[0].value
    assert len(at.get("vega_lite_chart")) == 3
    expanders = [e.label for e in at.expander]
    assert "Guards of the final frame (0/4): dynamic=False" in expanders
    assert "Graph-break variant: item-branch" in expanders
    labels = [b.proto.label for b in at.get("download_button") if b.proto.label not in CHARTS]
    assert labels == ["Run JSON", "Calls CSV", "Totals CSV", "Reasons CSV"]


def test_form_offers_the_new_modes_a_stance_and_the_cudagraph_what_if(app):
    at = _open(app)
    modes = widget(at.multiselect, "modes")
    assert {"maybe_mark_dynamic", "mark_unbacked"} <= set(modes.options)
    assert "mark_unbacked" not in modes.value  # opt-in: each mode is one more compile
    stance = widget(at.selectbox, "stance")
    assert stance.value == "default" and "fail_on_recompile" in stance.options
    assert widget(at.checkbox, "cudagraphs").value is False


def test_a_report_with_the_what_ifs_draws():
    at = AppTest.from_function(_draw, args=(_run(_whatif()),), default_timeout=30)
    at.run()
    assert not at.exception, at.exception
    assert "stance fail_on_recompile after call 1" in at.success[0].value
    assert not at.warning  # the stance's failures are its answer, not the run's trouble
    metrics = {m.label: m.value for m in at.metric}
    # a value too long for its metric shows its first part, the rest below it (not cut off)
    assert metrics["reduce-overhead: CUDA graphs"] == "2 recorded"
    assert metrics["stance after call 1"] == "fail_on_recompile"
    captions = [c.value for c in at.caption]
    assert "· 2 replayed" in captions and "· 0 eager · 4 failed" in captions
    assert len(at.get("vega_lite_chart")) == 4  # timeline, limit, steady state, CUDA graphs


@pytest.mark.slow
def test_a_cpu_run_with_the_new_modes_and_a_stance(worker_app):
    at = _open(worker_app)
    widget(at.text_area, "shapes").set_value("64x64,128x128,64x64")
    widget(at.multiselect, "modes").set_value(
        ["dynamic=False", "maybe_mark_dynamic", "mark_unbacked"]
    )
    widget(at.selectbox, "stance").set_value("eager_on_recompile")
    widget(at.selectbox, "Device").set_value("cpu")
    widget(at.selectbox, "backend").set_value("eager")
    widget(at.selectbox, "graph_break").set_value("off")
    widget(at.number_input, "Timed calls").set_value(3)
    at.button[0].click()
    at.run()
    poll_until(at, lambda a: len(a.success) > 0)
    head = at.success[0].value
    assert head.startswith(
        "recompiles pointwise (rows × cols) CPU eager, 3 calls along rows, cols: dynamic=False 1"
    )
    assert "mark_unbacked 1 graph" in head and "stance eager_on_recompile after call 1" in head
    metrics = {m.label: m.value for m in at.metric}
    # dynamic=False: 128² ran eager under the stance; bucketed (pow2) too; the marks never recompile
    # a value too long for its metric shows its figure there and the rest in a caption below
    assert metrics["stance after call 1"] == "eager_on_recompile"
    assert "· 2 eager · 0 failed" in [c.value for c in at.caption]


@pytest.mark.slow
def test_apply_on_the_default_sequence_marks_both_dims_in_one_press(worker_app):
    # issue 49: both dims of the default sequence vary, Dynamo's guard names only index 0
    at = _open(worker_app)
    assert widget(at.text_area, "shapes").value == DEFAULT
    widget(at.selectbox, "Device").set_value("cpu")
    widget(at.selectbox, "backend").set_value("eager")  # Dynamo's guards, as with Inductor
    widget(at.selectbox, "graph_break").set_value("off")
    widget(at.checkbox, "compile_trace").set_value(False)
    widget(at.number_input, "Timed calls").set_value(3)
    at.button[0].click()
    at.run()
    poll_until(at, lambda a: any(b.label == BUTTON for b in a.button))
    (said,) = [i.value for i in at.info if "mark_dynamic" in i.value]
    # named by the workload dim each axis carries, and every mark said before the press
    assert "x's axis 0 changed size, rows (256 → 512)" in said
    assert "mark_dynamic x:0,x:1 in every mode" in said
    assert "rows: x:0,y:0; cols: x:1,y:1" in said
    widget(at.button, BUTTON).click().run()
    poll_until(at, lambda a: any("Suggestion applied" in m.value for m in a.markdown))
    jobs = ui.manager()
    before, after = [r["id"] for r in jobs.history.list("recompiles")][::-1]
    assert jobs.history.get(after).spec["options"]["mark_dynamic"] == "x:0,x:1"
    title = f"**Suggestion applied: run #{before} → run #{after}**"
    assert title in [m.value for m in at.markdown]  # bold, not its asterisks as text
    assert not [m.value for m in at.markdown if "\\*" in m.value]
    table = next(d.value for d in at.dataframe if f"graphs in #{after}" in d.value.columns)
    assert dict(zip(table["mode"], table[f"graphs in #{after}"], strict=True)) == {
        f"{mode} + mark_dynamic x:0,x:1,y:0,y:1": 1
        for mode in ("dynamic=False", "dynamic=None", "dynamic=True", "mark_dynamic", "bucketed")
    }
    assert list(table[f"graphs in #{before}"]) == [3, 2, 1, 1, 3]
    assert not [b for b in at.button if b.label == BUTTON]  # nothing left to apply
