"""Runtime Lab: the st.navigation entry with the shared sidebar (device, environment, worker)."""

import streamlit as st

from runtime_lab import ui

st.set_page_config(page_title="Runtime Lab", page_icon="🧪", layout="wide")

pages = st.navigation(
    {
        "Lab": [
            st.Page("app_pages/overview.py", title="Overview", icon="🧪", default=True),
            st.Page("app_pages/fusion.py", title="Fusion & compile", icon="⚡"),
            st.Page("app_pages/recompiles.py", title="Shapes & recompiles", icon="🔁"),
            st.Page("app_pages/streams.py", title="Streams & events", icon="🔀"),
            st.Page("app_pages/allocator.py", title="Allocator", icon="🧠"),
        ],
        "Records": [st.Page("app_pages/history.py", title="History", icon="🗂️")],
    }
)
ui.sidebar(ui.manager())
pages.run()
