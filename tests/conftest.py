"""Shared fixtures: an isolated data directory per test, and skipping `gpu` tests without CUDA."""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
import torch
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def pytest_collection_modifyitems(config, items):
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs CUDA (no GPU on this machine)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    """Every test writes history and caches under its own tmp dir, never the working tree."""
    path = tmp_path / "lab-data"
    monkeypatch.setenv("RUNTIME_LAB_DATA_DIR", str(path))
    return path


@pytest.fixture
def app(data_dir):
    """The app under AppTest, run once, with a fresh manager (and worker) on this test's data."""
    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    yield at
    st.cache_resource.clear()  # on_release closes the manager and stops its worker


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """One manager (and worker) for a whole module, shared by its AppTests as on a real server."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RUNTIME_LAB_DATA_DIR", str(tmp_path_factory.mktemp("shared-lab")))
        st.cache_resource.clear()
        AppTest.from_file(APP, default_timeout=60).run()
        from runtime_lab import ui

        yield ui.manager()
        st.cache_resource.clear()
