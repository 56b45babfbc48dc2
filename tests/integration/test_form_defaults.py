"""AppTest: without a GPU each page's form starts from its CPU defaults, the full set one click away."""

import time

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


def test_a_running_default_run_says_how_long_it_has_run_and_is_expected_to(worker_app):
    info = EXPERIMENTS["fusion"]
    at = open_page(worker_app, "app_pages/fusion.py")
    poll_until(at, lambda a: bool(ui.manager().env))
    at.button[0].click()  # Run, with the form's defaults
    at.run()
    captions = lambda a: " ".join(c.value for c in a.caption)  # noqa: E731
    poll_until(at, lambda a: "Running for" in captions(a), timeout_s=60)
    kind = "cuda" if ui.manager().env.get("gpus") else "cpu"
    assert f"expected about {info.default_run_s[kind]:.0f} s here" in captions(at)
    assert info.default_run_basis in captions(at)
    ui.manager().cancel(at.session_state["job:fusion"])


@pytest.mark.slow
@pytest.mark.serial  # a bar in seconds: timed with no other test beside it
@pytest.mark.cold_caches  # the bar is a first run's: it measures the memory ceiling too
def test_each_default_run_ends_within_the_bar_with_empty_caches(tmp_path):
    """Issue 18: under 60 s on a 2-core CPU machine (20 s on a GPU), caches empty, warm worker."""
    from runtime_lab.runner.jobs import JobManager
    from runtime_lab.spec import build_spec

    jobs = JobManager(data_dir=tmp_path / "lab", timeout_s=300)
    try:
        deadline = time.monotonic() + 120
        while not jobs.env and time.monotonic() < deadline:
            time.sleep(0.2)
        gpu = bool(jobs.env.get("gpus"))
        took = {}
        for name in ("fusion", "streams", "recompiles", "allocator"):
            values = dict(form_defaults(EXPERIMENTS[name], gpu=gpu))
            shape, warmup, repeat = values.pop("shape"), values.pop("warmup"), values.pop("repeat")
            spec = build_spec(name, shape, warmup=warmup, repeat=repeat, options=values)
            job = jobs.wait(jobs.submit(spec), 300)
            assert job.state == "done", (name, job.error)
            took[name] = job.finished_at - job.started_at
        assert max(took.values()) < (20 if gpu else 60), took
    finally:
        jobs.close()
