"""Fusion & compile: silu(x + y) * (x - y) in eager and under torch.compile, checked then timed."""

import streamlit as st

from runtime_lab import ui

st.title("Fusion & compile")
st.markdown(
    "The workload is **silu(x + y) * (x − y)**. Eager PyTorch runs it as four kernels (add, "
    "sub, silu, mul), each reading its inputs from memory and writing its result back: 11 "
    "element transfers per output element. Inductor fuses it into one kernel that reads x and "
    "y once and writes the output once: 3 transfers, so a memory-bound call should be up to "
    "11/3 ≈ 3.7× faster. The lab checks every mode against eager first, then shows the kernels "
    "the profiler saw, what compiling costs (cold, warm cache, warm process), and how close "
    "each mode gets to the measured copy bandwidth."
)
jobs = ui.manager()
spec = ui.spec_form("fusion", jobs.env)
ui.run_panel(jobs, "fusion", spec)
