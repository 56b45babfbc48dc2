"""History: every recorded run, filterable; open one to redraw it, compare runs, or delete one."""

import pandas as pd
import streamlit as st

from runtime_lab import ui
from runtime_lab.view.origin import imported_from

st.title("History")
jobs = ui.manager()
if jobs.history is None:
    st.error(f"History unavailable: {ui.plain(str(jobs.history_notice))}")
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
table = pd.DataFrame(rows).drop(columns="spec")
table["label"] = table["id"].map(ui.run_labels(jobs.history, rows))  # what tells runs apart
table["origin"] = table["origin"].map(imported_from)  # empty for a run recorded here
for column in ("created_at", "finished_at"):  # a stored time no clock gives: said, not raised
    table[column] = table[column].map(ui.when)
st.dataframe(table, hide_index=True)
if ui.compare_section(jobs.history, table):
    st.stop()  # a comparison (?compare=…) takes the place of the single-run view
labels = (table.label + table.origin.map(lambda o: f" ({o})" if o else "")).set_axis(table["id"])
run_id = st.selectbox("Open run", table["id"], ui.run_index(table), lambda i: f"#{i}: {labels[i]}")
if ui.delete(jobs.history, run_id, labels[run_id]):  # asks first; before the run is read
    st.rerun()
ui.draw_stored(jobs.history, run_id)  # a run that fails to draw is an error for it alone
