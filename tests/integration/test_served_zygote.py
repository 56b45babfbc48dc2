"""The test session's zygote served to the CLIs it starts ($RUNTIME_LAB_ZYGOTE_AT): a CLI run's
worker is forked from it, and a link that fails leaves the CLI its worker of its own."""

import json
import os

import pytest
from bundledata import cli

from runtime_lab import envvars

SELFTEST = ["run", "selftest", "--device", "cpu"]


def _worker(data_dir, out) -> dict:
    done = cli(data_dir, *SELFTEST, "--json", str(out))
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text())["worker"]


def test_a_cli_runs_worker_is_forked_from_the_sessions_zygote(tmp_path):
    if not os.environ.get(envvars.ZYGOTE_AT_ENV):
        pytest.skip("LAB_TESTS_OWN_ZYGOTE=1: the session serves no zygote")
    assert _worker(tmp_path / "lab", tmp_path / "run.json")["forked"] is True


def test_an_unreachable_zygote_leaves_the_cli_a_worker_of_its_own(tmp_path, monkeypatch):
    monkeypatch.setenv(envvars.ZYGOTE_AT_ENV, f"{'00' * 32}@127.0.0.1:1")  # nothing listens
    assert _worker(tmp_path / "lab", tmp_path / "run.json")["forked"] is False
