"""Streams & events: the seed's side-stream matmul in every ordering, timelines, overlap, host."""

import streamlit as st

from runtime_lab import ui

st.title("Streams & events")
st.markdown(
    "A CUDA stream is an ordered queue; an event is a mark on one queue that another can wait "
    "for. The default stream writes **x** and **y** and records `inputs_ready`; a side stream "
    "waits on it, computes **z = x @ y** and records `work_done`; the default stream waits on "
    "that before it consumes **z**. The lab checks z against x @ y on the default stream, "
    "then runs each chosen **ordering** `trials` times with fresh inputs. A spin kernel of "
    "`delay_us` queued ahead of each producer keeps the race window open, so a missing wait "
    "shows up as wrong results out of N. One trial of each ordering is profiled: kernels per "
    "stream lane, event records (▼) and waits (|), and the host's own calls on one time axis. "
    "Two independent matmul chains on two streams vs one show when overlap pays."
)
jobs = ui.manager()
if jobs.env and not jobs.env.get("gpus"):
    st.info(
        "Streams and events are CUDA-only. This machine has no GPU: a run checks x @ y against "
        "the reference and times it with the host clock; orderings, timelines, overlap and "
        "event timing need a GPU and are not drawn."
    )
spec = ui.spec_form("streams", jobs.env)
ui.run_panel(jobs, "streams", spec)
