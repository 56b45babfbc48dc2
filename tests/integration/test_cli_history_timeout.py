"""The CLI's history listing says when it has nothing; a bad job timeout is refused, not ignored."""

import subprocess
import sys
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from runtime_lab import envvars
from runtime_lab.quote import given

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")


def _cli(*argv, env=None):
    return subprocess.run(
        [sys.executable, "-m", "runtime_lab", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**__import__("os").environ, **(env or {})},
    )


def test_an_unknown_experiment_is_refused_with_the_choices(tmp_path):
    done = _cli("--data-dir", str(tmp_path), "history", "--experiment", "nope")
    assert done.returncode == 2
    assert "invalid choice: 'nope'" in done.stderr and "fusion" in done.stderr


def test_an_empty_history_says_so(tmp_path):
    done = _cli("--data-dir", str(tmp_path), "history", "--experiment", "streams")
    assert done.returncode == 0 and done.stdout == ""
    assert done.stderr.strip() == f"runtime_lab: no runs of streams recorded in {tmp_path}"


@pytest.mark.parametrize(
    ("raw", "used"), [("abc", False), ("-5", False), ("inf", False), ("1e9", False), ("90", True)]
)
def test_job_timeout_values(monkeypatch, raw, used):
    monkeypatch.setenv(envvars.JOB_TIMEOUT_ENV, raw)
    problem = envvars.problem(envvars.JOB_TIMEOUT_ENV)
    assert (problem is None) == used
    assert envvars.value(envvars.JOB_TIMEOUT_ENV) == (90.0 if used else 600.0)
    if not used:
        assert f"$RUNTIME_LAB_JOB_TIMEOUT_S={given(raw)} is not allowed" in problem
        assert "a number from 1 to 86400" in problem


def test_the_app_refuses_a_bad_job_timeout(tmp_path, monkeypatch):
    monkeypatch.setenv("RUNTIME_LAB_DATA_DIR", str(tmp_path))
    monkeypatch.setenv(envvars.JOB_TIMEOUT_ENV, "ten minutes")
    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    assert not at.exception
    shown = [e.value.replace("\\", "") for e in at.error]  # the markdown escapes, as drawn
    assert len(shown) == 1 and "$RUNTIME_LAB_JOB_TIMEOUT_S='ten minutes'" in shown[0], shown
    st.cache_resource.clear()
