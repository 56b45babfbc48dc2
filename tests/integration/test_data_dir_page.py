"""AppTest: an unusable data directory is one message on the page, never a traceback or a worker."""

from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")


@pytest.mark.parametrize("case", ["file", "missing-parent"])
def test_unusable_data_dir_stops_the_app_with_one_message(tmp_path, monkeypatch, case):
    target = tmp_path / "taken"
    if case == "file":
        target.write_text("not a directory")
    else:
        target = tmp_path / "no" / "such" / "dir"
    monkeypatch.setenv("RUNTIME_LAB_DATA_DIR", str(target))
    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=30)
    at.run()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "Runtime Lab cannot start" in errors[0], errors
    assert "RUNTIME_LAB_DATA_DIR" in errors[0] and target.name in errors[0]
    assert not at.title  # no page drawn, so no manager and no worker started
    assert not (tmp_path / "no").exists()  # nothing created on the way
