"""Shapes & recompiles: a sequence of shapes through torch.compile, call by call, per dynamic mode."""

import streamlit as st

from runtime_lab import ui

st.title("Shapes & recompiles")
st.markdown(
    "Type the shapes your function will see, in order (as a dynamic batcher would feed it), or "
    "pick a preset. The lab calls **silu(x + y) * (x − y)** under `torch.compile` once per shape, "
    "for each dynamic mode from a clean compile state, and shows call by call whether Dynamo "
    "compiled, recompiled or reused a frame, what the compile cost, which guard failed and why, "
    "and how close each mode came to `recompile_limit`. A bucketing what-if pads the shapes and "
    "compares compiles against the padding's cost; a variant with a graph break shows what "
    "breaks cost and what `fullgraph=True` says about them."
)
jobs = ui.manager()
spec = ui.spec_form("recompiles", jobs.env)
ui.run_panel(jobs, "recompiles", spec)
