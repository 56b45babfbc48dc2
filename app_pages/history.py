"""History: every recorded run, filterable; open one to redraw it, compare runs, or delete one."""

import pandas as pd
import streamlit as st

from runtime_lab import ui

st.title("History")
jobs = ui.manager()
if jobs.history is None:
    st.error(f"History unavailable: {jobs.history_notice}")
    st.stop()
facets = ui.history_call(jobs.history.facets) or {"experiment": [], "device": []}
cols = st.columns(2)
experiment = cols[0].selectbox("Experiment", ["all", *facets["experiment"]])
device = cols[1].selectbox("Device", ["all", *facets["device"]])
rows = ui.history_call(
    jobs.history.list,
    experiment=None if experiment == "all" else experiment,
    device=None if device == "all" else device,
)
ui.bundle_section(jobs.history, jobs.data_dir, rows or [])  # import works on an empty history
if not rows:
    st.info("No runs recorded yet." if rows == [] else "")
    st.stop()
table = pd.DataFrame(rows)
for column in ("created_at", "finished_at"):
    table[column] = pd.to_datetime(table[column], unit="s").dt.strftime("%Y-%m-%d %H:%M:%S")
st.dataframe(table, hide_index=True)
if ui.compare_section(jobs.history, table):
    st.stop()  # a comparison (?compare=…) takes the place of the single-run view
labels = table.set_index("id").label
run_id = st.selectbox("Open run", table["id"], ui.run_index(table), lambda i: f"#{i}: {labels[i]}")
run = ui.history_call(jobs.history.get, run_id)
if run:
    if st.button(f"Delete run #{run_id}"):
        ui.history_call(jobs.history.delete, run_id)
        st.rerun()
    ui.draw(run)
