"""A bad RUNTIME_LAB_* value (issue 26) stops the CLI (exit 2, one stderr line) and the app (one
error) before any worker starts, naming the variable, its value and what is allowed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from runtime_lab import envvars
from runtime_lab.runner.process import WorkerProcess

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
CASES = [
    (envvars.CPU_WORKERS_ENV, "999", "=999 is not allowed: an integer from 1 to"),
    (envvars.TORCH_THREADS_ENV, "abc", "='abc' is not allowed: an integer from 1 to"),
    (envvars.TORCH_THREADS_ENV, "²", "='²' is not allowed"),  # passed isdigit, killed workers
    (envvars.JOB_TIMEOUT_ENV, "0", "=0 is not allowed: a number from 1 to 86400"),
    (envvars.RAY_ADDRESS_ENV, "x" * 100, "… (100 characters) is not allowed: auto, local"),
]


def _cli(argv, **env):
    clean = {k: v for k, v in os.environ.items() if not k.startswith("RUNTIME_LAB_")}
    return subprocess.run(
        [sys.executable, "-m", "runtime_lab", *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**clean, "PYTHONPATH": str(ROOT), **env},
        timeout=60,
    )


@pytest.mark.parametrize(
    ("name", "raw", "said"), CASES, ids=[f"{c[0][12:]}-{c[1][:8]}" for c in CASES]
)
def test_the_cli_refuses_a_bad_value_before_any_worker_starts(tmp_path, name, raw, said):
    data = tmp_path / "lab"  # created by the first thing that would start: the job manager
    done = _cli(["--data-dir", str(data), "run", "streams", "--device", "cpu"], **{name: raw})
    lines = done.stderr.splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert lines[0].startswith(f"runtime_lab: error: ${name}") and said in lines[0], lines[0]
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert not data.exists()  # no manager, so no worker, history or cache


def test_every_command_says_it_and_a_flag_given_instead_makes_it_moot(tmp_path):
    bad = {envvars.CPU_WORKERS_ENV: "0"}
    for command in (["history"], ["env"], ["workers"]):
        done = _cli(["--data-dir", str(tmp_path), *command], **bad)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, (command, done.stderr)
    timeout = {envvars.JOB_TIMEOUT_ENV: "soon"}
    refused = _cli(["--data-dir", str(tmp_path / "a"), "run", "streams"], **timeout)
    assert refused.returncode == 2 and "RUNTIME_LAB_JOB_TIMEOUT_S='soon'" in refused.stderr
    # with --timeout the variable is not used, so not refused (the run then fails on its own
    # bad --warmup, before any worker: the check got past the variable)
    argv = ["--data-dir", str(tmp_path / "b"), "run", "streams", "--timeout", "60"]
    moot = _cli([*argv, "--warmup", "-1"], **timeout)
    assert moot.returncode == 2 and "warmup" in moot.stderr and "TIMEOUT" not in moot.stderr


def test_the_ray_address_flag_is_checked_by_the_same_rule(tmp_path):
    done = _cli(["--data-dir", str(tmp_path), "--ray-address", "http://head", "workers"])
    assert done.returncode == 2 and done.stderr == (
        "runtime_lab: error: --ray-address 'http://head': expected auto, local, "
        "ray://HOST[:PORT] or HOST:PORT\n"
    )


def test_setup_sh_stops_on_a_bad_value_before_installing(tmp_path):
    # a copy of the script beside the package, with a venv python that only says it was run:
    # were the check gone, the script would get no further than that (and install nothing)
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts/setup.sh").write_text((ROOT / "scripts/setup.sh").read_text())
    (tmp_path / "runtime_lab").symlink_to(ROOT / "runtime_lab")
    venv_python = tmp_path / ".venv/bin/python"
    venv_python.parent.mkdir(parents=True)
    venv_python.write_text("#!/bin/sh\necho venv-python-ran >&2\nexit 3\n")
    venv_python.chmod(0o755)
    done = subprocess.run(
        ["bash", str(tmp_path / "scripts/setup.sh")],
        capture_output=True,
        text=True,
        env={**os.environ, envvars.SYSTEM_TORCH_ENV: "yes", "PYTHON": sys.executable},
        timeout=60,
    )
    assert done.returncode == 2 and done.stderr == (
        f"runtime_lab: error: ${envvars.SYSTEM_TORCH_ENV}='yes' is not allowed: 0 or 1; it sets "
        "whether setup.sh lets the venv see $PYTHON's packages (its CUDA torch)\n"
    )


@pytest.mark.parametrize(
    ("name", "raw"), [(envvars.CPU_WORKERS_ENV, "999"), (envvars.TORCH_THREADS_ENV, "abc")]
)
def test_the_app_shows_one_error_naming_the_variable_and_starts_no_worker(
    tmp_path, monkeypatch, name, raw
):
    def no_worker(*_):
        raise AssertionError("a worker was started with a bad value")

    monkeypatch.setattr(WorkerProcess, "start", no_worker)
    monkeypatch.setenv("RUNTIME_LAB_DATA_DIR", str(tmp_path))
    monkeypatch.setenv(name, raw)
    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=30)
    at.run()
    assert not at.exception
    errors = [e.value.replace("\\", "") for e in at.error]  # the markdown escapes, as drawn
    assert len(errors) == 1, errors
    assert f"${name}=" in errors[0] and "is not allowed: an integer from 1 to" in errors[0]
    assert "no worker was started" in errors[0]
    assert not at.title and not at.sidebar.markdown  # no page, no sidebar: no manager made
    assert not (tmp_path / "history.sqlite3").exists()
    st.cache_resource.clear()
