"""The user's workload files on the server: read once by the describe children, listed in the sidebar."""

from __future__ import annotations

import streamlit as st

from runtime_lab.view.text import markdown as md
from runtime_lab.workloads.describe import Described, from_environment


@st.cache_resource(show_spinner="Reading your workload files…")
def user_workloads() -> Described:
    """Once per server, before any worker starts: the workers inherit the (absolute) paths and
    import the files themselves; this process only registers what the files declare."""
    return from_environment()


def sidebar_lines(found: Described) -> None:
    """Which of the user's workloads the lab offers, and each file or workload it refused."""
    if not found.entries.strip():
        return
    if found.names:
        names = md(", ".join(found.names))
        st.caption(f"Your workloads: {names} (restart the server to reload the files)")
    for problem in found.problems:
        st.warning(f"Workload file not loaded: {md(problem)}")
