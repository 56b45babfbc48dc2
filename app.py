"""Runtime Lab: the st.navigation entry with the shared sidebar (device, environment, worker)."""

import streamlit as st

from runtime_lab import ui

st.set_page_config(page_title="Runtime Lab", page_icon=":material/science:", layout="wide")
ui.check_data_dir()
work_files = ui.user_workloads()  # before the workers start: they inherit the paths
pages = ui.navigation()
ui.sidebar(ui.manager(), work_files)
pages.run()
