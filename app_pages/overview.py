"""Overview: what the lab shows and where each question is answered."""

import streamlit as st

from runtime_lab import ui
from runtime_lab.registry import visible

st.title("Runtime Lab")
st.markdown(
    "See PyTorch's execution layer instead of guessing about it. Pick a shape, dtype and "
    "device, press **Run**, and the lab runs the experiment live in its GPU worker: one "
    "process that owns CUDA and runs one job at a time for everyone on this server."
)
for info in visible():
    st.markdown(f"**{info.title}**: {info.summary}")
jobs = ui.manager()
if not (jobs.env.get("gpus") or []):
    st.info(
        "No GPU here: the lab runs on the CPU (correctness branches, host timings). "
        "Streams, events, CUDA graphs and device timing need CUDA."
    )
