"""The run panel when the pool has a choice (GPUs of two types): 'Run on' a named worker, or one
of each type and then the compare view. Two local workers with CUDA hidden stand in for the GPUs."""

import pytest
import streamlit as st
from apphelpers import APP, open_page, poll_until, widget
from streamlit.testing.v1 import AppTest

from runtime_lab.runner import devices
from runtime_lab.runner.devices import LanePlan
from runtime_lab.runner.jobs import JobManager
from runtime_lab.ui import shell
from runtime_lab.ui.targets import BY_DEVICE, EACH_TYPE

pytestmark = pytest.mark.slow
HIDDEN = {"CUDA_VISIBLE_DEVICES": ""}


@pytest.fixture
def two_types(data_dir, monkeypatch):
    plans = [
        LanePlan(name="gpu-a", kind="gpu", device_type="fake-a", env=HIDDEN),
        LanePlan(name="gpu-b", kind="gpu", device_type="fake-b", index=1, env=HIDDEN),
        *devices.local_plan(0, 1),
    ]
    monkeypatch.setattr(shell, "JobManager", lambda: JobManager(plans=plans, spare=False))
    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    yield at
    st.cache_resource.clear()


def _streams(at, target):
    open_page(at, "app_pages/streams.py")
    at.text_input[0].set_value("64x64")
    widget(at.selectbox, "Device").set_value("cpu")
    widget(at.selectbox, "Run on").set_value(target)
    at.button[0].click()
    at.run()
    return at


def test_run_on_offers_each_worker_and_one_of_each_type(two_types):
    at = open_page(two_types, "app_pages/streams.py")
    options = widget(at.selectbox, "Run on").options
    assert options[:2] == [BY_DEVICE, EACH_TYPE]
    assert any(o.startswith("gpu-a · fake-a") for o in options)
    assert any(o.startswith("gpu-b · fake-b") for o in options)


def test_a_named_worker_runs_it(two_types):
    at = open_page(two_types, "app_pages/streams.py")
    label = next(o for o in widget(at.selectbox, "Run on").options if o.startswith("gpu-b"))
    _streams(at, label)
    jobs = shell.manager()
    [job_id] = list(jobs._jobs)
    job = jobs.wait(job_id, 120)
    assert job.state == "done" and job.lane == "gpu-b", job.error
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]


def test_one_of_each_type_ends_in_the_compare_view(two_types):
    at = _streams(two_types, EACH_TYPE)
    jobs = shell.manager()
    lanes = sorted(j.lane for j in jobs._jobs.values())
    assert lanes == ["gpu-a", "gpu-b"]
    for job_id in list(jobs._jobs):
        assert jobs.wait(job_id, 180).state == "done"
    poll_until(at, lambda a: "compare" in a.query_params)
    runs = sorted(j.run_id for j in jobs._jobs.values())
    assert sorted(map(int, at.query_params["compare"].split(","))) == runs
    assert at.subheader[0].value.startswith("Comparing streams runs")


def test_a_cluster_out_of_reach_is_said_in_the_sidebar_and_this_host_runs(data_dir, monkeypatch):
    monkeypatch.setenv("RUNTIME_LAB_RAY_ADDRESS", "127.0.0.1:9")  # nothing listens there
    st.cache_resource.clear()
    try:
        at = AppTest.from_file(APP, default_timeout=60)
        at.run()
        assert not at.exception
        [warning] = [w.value for w in at.sidebar.warning]
        assert warning.startswith("could not reach the Ray cluster at 127.0.0.1:9")
        assert warning.endswith("running on this host's workers only")
        assert [lane.name for lane in shell.manager().lanes] == ["cpu"]
    finally:
        st.cache_resource.clear()
