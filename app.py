"""Runtime Lab: the st.navigation entry with the shared sidebar (device, environment, worker)."""

import streamlit as st

from runtime_lab import ui

st.set_page_config(page_title="Runtime Lab", page_icon="🧪", layout="wide")

pages = st.navigation(
    {
        "Lab": [
            st.Page("pages/overview.py", title="Overview", icon="🧪", default=True),
            st.Page("pages/fusion.py", title="Fusion & compile", icon="⚡"),
            st.Page("pages/recompiles.py", title="Shapes & recompiles", icon="🔁"),
            st.Page("pages/streams.py", title="Streams & events", icon="🔀"),
            st.Page("pages/allocator.py", title="Allocator", icon="🧠"),
        ],
        "Records": [st.Page("pages/history.py", title="History", icon="🗂️")],
    }
)
ui.sidebar(ui.manager())
pages.run()
