"""Your own workloads end to end: only workers import the file, bad code is one line, the run
records the code it ran, the pages offer the workloads marked as yours."""

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
import streamlit as st
from apphelpers import APP, open_page, widget
from streamlit.testing.v1 import AppTest

from runtime_lab.workloads import registry
from tests.helpers import replay
from tests.helpers.bundledata import ROOT, cli

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "user_workloads"
GOOD, BAD = str(FIXTURES / "good.py"), str(FIXTURES / "bad_fn.py")
# the user's file in the worker is the point: no compile-latency or compile-trace compiles
FAST = ["--device", "cpu", "--warmup", "1", "--repeat", "3", "--compile-latency", "false"]
FAST += ["--compile-trace", "false"]


@pytest.fixture(autouse=True)
def clean_registry():
    yield
    registry.clear_user()


def test_the_server_side_never_imports_the_file_nor_torch():
    code = (
        "import sys\n"
        "from runtime_lab.cli.main import main\n"
        f"assert main(['--workloads', {GOOD!r}, 'workloads', '--json']) == 0\n"
        "from runtime_lab.workloads.registry import WORKLOADS\n"
        "assert WORKLOADS['scaled_tanh'].origin == 'yours (good.py)'\n"
        "assert 'torch' not in sys.modules, 'torch'\n"
        "assert not [m for m in sys.modules if m.startswith('runtime_lab_user')], 'imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    assert [w["name"] for w in listed][-1] == "scaled_tanh"


def test_a_run_records_its_code_which_travels_in_bundles_and_compare_sees_it_changed(tmp_path):
    """The run records the file, its sha256 and its source (a file beside it that exits at import
    costs only itself); after an edit, a second run's code differs, and compare says so in this
    lab and in one the two runs were bundled to. One test: each CLI run is a worker start and a
    compile (the two tests that ran this apart each paid for their own)."""
    mine, out, exits = tmp_path / "mine.py", tmp_path / "run.json", tmp_path / "exits.py"
    mine.write_text(Path(GOOD).read_text())
    exits.write_text("import os\nos._exit(3)\n")  # issue 38: it took every job down with it
    data, other = tmp_path / "data", tmp_path / "other"
    args = ["run", "fusion", "--workload", "scaled_tanh", "--shape", "64x64"]
    args += ["--modes", "eager,inductor", *FAST]
    done = cli(data, "--workloads", f"{exits},{mine}", *args, "--json", str(out))
    assert done.returncode == 0, done.stderr
    assert f"workload file: {exits}: importing it was stopped: it called os._exit(3)" in done.stderr
    sha = hashlib.sha256(mine.read_bytes()).hexdigest()
    assert f"Your workload scaled_tanh from mine.py, sha256 {sha[:12]}." in done.stdout
    run = json.loads(out.read_text())
    code = run["worker"]["workload_code"]
    assert code["sha256"] == sha and code["file"] == str(mine)
    assert "def scaled_tanh" in code["source"]
    assert run["status"] == "done" and "inductor 1 kernel" in done.stdout

    mine.write_text(Path(GOOD).read_text() + "\n# edited after the first run\n")
    second = cli(data, "--workloads", str(mine), *args)
    assert second.returncode == 0, second.stderr
    bundle = tmp_path / "runs.json.gz"
    assert cli(data, "export", "1", "2", "--out", str(bundle)).returncode == 0
    assert cli(other, "import", str(bundle)).returncode == 0
    for where in (data, other):
        shown = cli(where, "compare", "1", "2")
        assert shown.returncode == 0, shown.stderr
        assert "Same workload name (scaled_tanh), different code: sha256 #1 " in shown.stdout


def test_a_function_that_raises_is_a_failed_run_with_one_line(tmp_path):
    data = tmp_path / "data"
    done = cli(data, "--workloads", BAD, "run", "fusion", "--workload", "bad_raises", *FAST)
    assert done.returncode == 1, (done.stdout, done.stderr)
    said = "bad_raises: fn raised ValueError: the user's bug (at its cpu_shape 16x8 float32"
    assert said in done.stdout + done.stderr and "Traceback" not in done.stdout + done.stderr
    listed = cli(data, "history").stdout
    assert "failed" in listed and "fusion" in listed  # recorded: a failed run with its reason


def test_a_function_that_hangs_is_cut_off_by_the_job_timeout(tmp_path):
    args = ["run", "fusion", "--workload", "bad_hangs", "--timeout", "4", *FAST]
    done = cli(tmp_path, "--workloads", BAD, *args)
    assert done.returncode == 1 and "timed out after 4 s" in done.stdout + done.stderr


def test_a_file_that_does_not_load_is_said_and_its_workload_is_not_offered(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("def f(:\n")
    done = cli(tmp_path, "--workloads", f"{broken},{GOOD}", "run", "fusion", "--workload", "f")
    assert done.returncode == 2
    assert f"workload file: {broken}: syntax error at line 1" in done.stderr
    assert "'f' is not allowed; allowed: pointwise" in done.stderr
    assert "scaled_tanh" in done.stderr  # the good file's workload is offered
    gone = tmp_path / "gone.py"  # issue 38: a missing file is a warning, as one that raises
    missing = cli(tmp_path, "--workloads", f"{gone},{GOOD}", "workloads")
    assert missing.returncode == 0 and f"workload file: {gone}: no such file" in missing.stderr
    assert "scaled_tanh" in missing.stdout and "softmax" in missing.stdout


def test_a_file_that_loops_or_exits_at_import_costs_only_itself(tmp_path):
    from runtime_lab.workloads.describe import describe

    loops, leaves = tmp_path / "loops.py", tmp_path / "leaves.py"
    loops.write_text("while True:\n    pass\n")
    leaves.write_text("import signal, os\nos.kill(os.getpid(), signal.SIGKILL)\n")
    found = describe(f"{loops},{leaves}", timeout_s=3)  # each file in a child of its own
    assert found.kept == [] and found.problems == [
        f"{loops}: reading it took over 3 s (does it loop or wait at import?)",
        f"{leaves}: importing it ended its process (exit -9: no output)",
    ]


@pytest.fixture
def user_app(data_dir, monkeypatch, tmp_path):
    broken, exits = tmp_path / "broken.py", tmp_path / "exits.py"
    broken.write_text("raise RuntimeError('not today')\n")
    exits.write_text("import sys\nsys.exit(2)\n")
    # issue 38: a missing file stopped the app ("Runtime Lab cannot start")
    entries = [GOOD, str(broken), str(tmp_path / "gone.py"), str(exits)]
    monkeypatch.setenv("RUNTIME_LAB_WORKLOADS", ",".join(entries))
    replay.install(monkeypatch)
    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    yield at
    st.cache_resource.clear()


def test_the_pages_offer_the_users_workloads_and_say_which_file_failed(user_app):
    at = open_page(user_app, "app_pages/fusion.py")
    picker = widget(at.selectbox, "Workload")
    assert "scaled_tanh: tanh(x)·1.5 + x · yours (good.py)" in picker.options
    picker.set_value("scaled_tanh").run()
    assert widget(at.text_input, "Shape").value in ("64x64", "1024x1024")
    captions = " ".join(c.value for c in at.sidebar.caption)
    assert "Your workloads: scaled_tanh" in captions
    warned = " ".join(w.value for w in at.sidebar.warning)
    assert "broken.py: importing it raised RuntimeError: not today" in warned
    assert (
        "gone.py: no such file" in warned and "exits.py: importing it called sys.exit(2)" in warned
    )
    assert not at.error and not at.exception
    assert not [m for m in sys.modules if m.startswith("runtime_lab_user")]
