"""Streams & events: the seed's side-stream matmul, ordered by events, checked, then timed."""

import streamlit as st

from runtime_lab import ui

st.title("Streams & events")
st.markdown(
    "The default stream makes **x** and **y** and records `inputs_ready`; a side stream "
    "waits on it, computes **x @ y** and records `work_done`; the default stream waits on "
    "that before it consumes **z**. The lab compares z with x @ y computed on the default "
    "stream, and only then times both."
)
jobs = ui.manager()
spec = ui.spec_form("streams", jobs.env)
ui.run_panel(jobs, "streams", spec)
