"""AppTest: without a GPU each page's form starts from its CPU defaults, the full set one click away."""

import pytest
from apphelpers import open_page, poll_until, widget

from runtime_lab import ui
from runtime_lab.options import form_defaults
from runtime_lab.registry import EXPERIMENTS

SIZED = [n for n, info in EXPERIMENTS.items() if info.cpu_defaults and not info.hidden]


def _main_value(at, info, values):
    """The value of the widget the CPU defaults change first (shape, else the sequence)."""
    if "shape" in info.cpu_defaults and not any(o.kind == "shapes" for o in info.options.values()):
        return widget(at.text_input, "Shape").value, values["shape"]
    name = next(k for k in info.cpu_defaults if k in info.options)
    kinds = {"shapes": at.text_area, "multi": at.multiselect, "bool": at.checkbox}
    found = widget(kinds.get(info.options[name].kind, at.selectbox), name).value
    expected = values[name]
    if info.options[name].kind == "multi":
        expected = str(expected).split(",")
    return found, expected


@pytest.mark.parametrize("name", SIZED)
def test_cpu_machine_gets_cpu_defaults_and_the_full_set_on_click(app, name):
    info = EXPERIMENTS[name]
    at = open_page(app, f"app_pages/{name}.py")
    poll_until(at, lambda a: bool(ui.manager().env))
    if ui.manager().env.get("gpus"):
        pytest.skip("this machine has a GPU: the form holds the full defaults")
    found, expected = _main_value(at, info, form_defaults(info, gpu=False))
    assert found == expected
    note = " ".join(c.value for c in at.caption)
    assert "Sized for this CPU" in note and info.cpu_defaults_why in note
    assert "The default Run takes about" in note  # the measured default: nothing in history yet
    widget(at.button, "Full set").click()
    at.run()
    found, expected = _main_value(at, info, form_defaults(info, gpu=True))
    assert found == expected
    assert "The full set, as on a GPU" in " ".join(c.value for c in at.caption)
    widget(at.button, "CPU-sized defaults").click()
    at.run()
    found, expected = _main_value(at, info, form_defaults(info, gpu=False))
    assert found == expected
