"""The `app` fixture's replay pool: a page's Run is answered from the recorded CPU run of its
experiment through the real manager, lanes and history, and no worker process starts (the unit
tier's guard fails this test if one does)."""

from apphelpers import open_page, poll_until, widget

from runtime_lab import ui


def test_a_page_run_is_answered_from_the_recorded_run_without_a_process(app):
    at = open_page(app, "app_pages/streams.py")
    widget(at.text_input, "Shape").set_value("64x64")
    widget(at.selectbox, "Device").set_value("cpu")
    at.button[0].click()
    at.run()
    poll_until(at, lambda a: bool(a.success), timeout_s=30)
    assert at.success[0].value.startswith("streams cpu: max_abs_diff 0.000e+00")
    [run] = ui.manager().history.list()
    assert run["status"] == "done" and run["label"].startswith("streams 64x64")
    assert ui.manager().status()["lanes"][0]["worker_state"] == "idle"
