"""Links: a spec as query parameters fills the form (never runs it); bad values get messages."""

import pytest
from apphelpers import open_page, poll_until, widget

from runtime_lab import registry, ui
from runtime_lab.options import form_defaults
from runtime_lab.spec import build_spec
from runtime_lab.ui import links

DEVICES = ["auto", "cpu"]


def _values(info):
    return {"dtype": "float32", "device": "auto", "l2_flush": True, **form_defaults(info, True)}


@pytest.mark.parametrize("name", registry.NAMES)
def test_a_spec_survives_the_round_trip_through_its_link(name):
    info = registry.EXPERIMENTS[name]
    values = dict(form_defaults(info, True))
    shape, warmup = values.pop("shape"), values.pop("warmup")
    values.pop("repeat")  # the link carries 7 instead
    spec = build_spec(name, shape, "bfloat16", "cpu", warmup, 7, False, seed=3, options=values)
    query = links.to_query(spec)
    assert query["repeat"] == "7" and query["l2_flush"] == "false" and query["seed"] == "3"
    filled, problems = links.from_query(info, query, _values(info), DEVICES)
    assert problems == {}
    common = {k: filled.pop(k) for k in links.COMMON}
    again = build_spec(name, common.pop("shape"), **common, options=filled)
    assert again == spec


@pytest.mark.parametrize(
    ("query", "field", "fragment"),
    [
        ({"dtype": "int8"}, "dtype", "allowed: float32"),
        ({"device": "cuda:0"}, "device", "not a device of this machine"),
        ({"repeat": "ten"}, "repeat", "not a whole number"),
        ({"repeat": "0"}, "repeat", "1 to 10000"),
        ({"shape": "0x-3"}, "shape", "0x-3"),
        ({"modes": "eager,warp"}, "modes", "'warp' is not one of"),
        ({"fullgraph": "maybe"}, "fullgraph", "not true or false"),
        ({"bogus": "1"}, "bogus", "is not a field of fusion"),
    ],
)
def test_bad_link_values_get_the_forms_messages(query, field, fragment):
    info = registry.EXPERIMENTS["fusion"]
    _, problems = links.from_query(info, query, _values(info), DEVICES)
    assert fragment in problems[field], problems


def test_streamlit_parameters_are_not_spec_fields():
    info = registry.EXPERIMENTS["fusion"]
    assert links.from_query(info, {"embed": "true"}, _values(info), DEVICES)[1] == {}
    assert links.tag({"embed": "true"}) == ""


def test_a_link_fills_the_page_form_and_does_not_run(app):
    app.query_params.update(
        {"shape": "96x64", "dtype": "float16", "modes": "eager,dynamo-eager", "repeat": "9"}
    )
    at = open_page(app, "app_pages/fusion.py")
    assert widget(at.text_input, "Shape").value == "96x64"
    assert widget(at.selectbox, "dtype").value == "float16"
    assert widget(at.multiselect, "modes").value == ["eager", "dynamo-eager"]
    assert widget(at.number_input, "Timed calls").value == 9
    assert not at.error
    assert "job:fusion" not in at.session_state and ui.manager().history.list() == []


def test_a_bad_link_value_is_a_message_on_the_page(app):
    app.query_params.update({"dtype": "int8", "repeat": "ten"})
    at = open_page(app, "app_pages/fusion.py")
    errors = [e.value for e in at.error]
    assert any(e.startswith("**dtype** (from the link)") for e in errors), errors
    assert any(e.startswith("**repeat** (from the link)") for e in errors), errors
    assert widget(at.selectbox, "dtype").value == "float32"  # the bad value was not taken
    assert "job:fusion" not in at.session_state


def test_run_puts_the_spec_in_the_address(app):
    at = open_page(app, "app_pages/streams.py")
    poll_until(at, lambda a: bool(ui.manager().env))
    widget(at.text_input, "Shape").set_value("32x32")
    widget(at.selectbox, "Device").set_value("cpu")
    at.button[0].click()
    at.run()
    assert at.query_params["shape"] == ["32x32"] or at.query_params["shape"] == "32x32"
    assert "job:streams" in at.session_state


def test_a_recorded_run_links_to_itself_and_to_its_form(app):
    at = open_page(app, "app_pages/streams.py")
    poll_until(at, lambda a: bool(ui.manager().env))
    widget(at.text_input, "Shape").set_value("32x32")
    widget(at.selectbox, "Device").set_value("cpu")
    at.button[0].click()
    at.run()
    poll_until(at, lambda a: bool(a.get("page_link")))
    found = {p.proto.label: p.proto for p in at.get("page_link")}
    again = found["Run this spec again"]
    assert again.page.endswith("streams") or "streams" in again.page
    assert "shape=32x32" in again.query_string and "device=cpu" in again.query_string
    run_id = ui.manager().history.list()[0]["id"]
    assert found[f"Link to run #{run_id}"].query_string == f"run={run_id}"
