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
    # the recorded run's timing is noisy: its headline is amber, saying so
    poll_until(at, lambda a: bool(a.success or a.warning), timeout_s=30)
    said = [box.value for box in (*at.success, *at.warning)]
    assert said[0].startswith("No CUDA streams on this CPU: the matmul ran on the host"), said
    [run] = ui.manager().history.list()
    assert run["status"] == "done" and run["label"].startswith("streams 64x64")
    assert ui.manager().status()["lanes"][0]["worker_state"] == "idle"
