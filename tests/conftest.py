"""Shared fixtures: each test's tier marker from its folder (the heaviest integration files first),
an isolated data directory per test, skipping `gpu` tests without CUDA, each tier's wall time
against its budget at the end, and the session's zygote (for the integration and e2e tiers)."""

from __future__ import annotations

import os
import threading
import time
from collections import defaultdict
from pathlib import Path

import budgets
import pytest
import replay
import streamlit as st
import torch
from apphelpers import APP
from streamlit.testing.v1 import AppTest
from zygote_service import LAB_ZYGOTE, SharedCeiling, ZygoteService

from runtime_lab import envvars
from runtime_lab.runner import forked, served_zygote

TIERS = ("unit", "integration", "e2e", "gpu")  # tests/<tier>/: its marker, so -m picks a tier
ALONE = ("e2e", "gpu")  # a server and Chromium, or the GPU: `serial`, never beside another test


def pytest_collection_modifyitems(config, items):
    """Mark each test with its folder's tier (and e2e and gpu tests `serial`); skip `gpu` tests
    on a machine without CUDA."""
    root = Path(__file__).parent
    misplaced = []
    for item in items:
        if not item.path.is_relative_to(root):
            continue
        tier = item.path.relative_to(root).parts[0]
        if tier in TIERS:
            item.add_marker(getattr(pytest.mark, tier))
        if tier in ALONE:
            item.add_marker(pytest.mark.serial)
        if tier != "gpu" and item.get_closest_marker("gpu"):
            misplaced.append(item.nodeid)
    if misplaced:  # `make test-gpu` runs tests/gpu only: a GPU test elsewhere never runs there
        raise pytest.UsageError(f"gpu-marked tests belong in tests/gpu: {', '.join(misplaced)}")
    # the heaviest files first (a stable sort: each file's tests keep their order), so that
    # xdist's --dist loadfile hands them out first and both workers end on short files
    ranks = dict(zip(items, budgets.heaviest_first([i.path.name for i in items]), strict=True))
    items.sort(key=ranks.__getitem__)
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs CUDA (no GPU on this machine)")
    for item in items:
        if item.get_closest_marker("gpu"):
            item.add_marker(skip)


STARTED = pytest.StashKey[float]()


def pytest_sessionstart(session):
    session.config.stash[STARTED] = time.monotonic()


@pytest.hookimpl(trylast=True)  # after the slowest 25, so it is the last thing before the tally
def pytest_terminal_summary(terminalreporter, config):
    """make test's calls (tests/helpers/budgets.py): the wall time against the tier's budget,
    and its slowest files, so a tier that grows back shows in the log (printed, not failed)."""
    if hasattr(config, "workerinput") or STARTED not in config.stash:
        return
    tier = budgets.tier_of(config.args, config.option.markexpr or "")
    if tier is None:
        return
    per_file: dict[str, float] = defaultdict(float)
    for reports in terminalreporter.stats.values():
        for report in reports:
            if isinstance(report, pytest.TestReport):
                per_file[report.nodeid.split("::")[0]] += report.duration
    took = time.monotonic() - config.stash[STARTED]
    line, over = budgets.verdict(tier, took, per_file)
    terminalreporter.write_sep("=", line, red=over, green=not over, bold=over)


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    """Every test writes history and caches under its own tmp dir, never the working tree."""
    path = tmp_path / "lab-data"
    monkeypatch.setenv("RUNTIME_LAB_DATA_DIR", str(path))
    return path


def _app_test():
    """The app under AppTest, run once, with a fresh manager (the cache cleared before and after:
    on_release closes the manager and stops its workers)."""
    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    yield at
    st.cache_resource.clear()


@pytest.fixture
def app(data_dir, monkeypatch):
    """The app on this test's data, its workers a replay pool: a job is answered at once from a
    recorded CPU run of its experiment, and no process starts. For pages, forms and drawing."""
    replay.install(monkeypatch)
    yield from _app_test()


@pytest.fixture
def worker_app(data_dir):
    """The app on this test's data with a real worker: for tests of what a run really gives."""
    yield from _app_test()


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


@pytest.fixture(scope="session")
def session_zygote():
    """One zygote for the whole session (per xdist worker), where each job manager started its
    own: torch imported and the compiler warmed once, not once per test (a zygote start is an
    interpreter, torch's import and a small compile: seconds of the 2 cores). The managers of
    this process get it in place of their own (forked.Zygote patched); the CLIs and servers its
    tests start reach it through $RUNTIME_LAB_ZYGOTE_AT (runtime_lab/runner/served_zygote.py),
    where each would have started a worker of its own (torch's import, 3-4 s, and Inductor's
    set-up in its first compile, 8 s). Each forked worker's data dir gets the session's memory
    ceiling (zygote_service.SharedCeiling: measured once, not once per data dir). Workers are still forked per manager and stopped by its
    close(), which leaves the zygote running; one broken by a test is replaced. A test about the
    zygote itself is marked `own_zygote` (tests/integration/conftest.py).
    LAB_TESTS_OWN_ZYGOTE=1 gives every manager its own, as the lab does (to compare)."""
    if os.environ.get("LAB_TESTS_OWN_ZYGOTE") == "1":
        yield None
        return
    made: list = []
    lock = threading.Lock()  # the service's threads and this process's managers ask at once

    def current():
        with lock:
            if not made or made[-1].broken or made[-1].no_forks:  # closed, dead or given up
                made.append(LAB_ZYGOTE())
            return made[-1]

    ceiling = SharedCeiling()

    class Shared:
        """What a manager holds: the session's zygote, whose close() is the session's to do."""

        ceiling_share = ceiling

        def __init__(self):
            self.zygote = current()

        def __getattr__(self, name):
            return getattr(self.zygote, name)

        def fork(self, env, address, timeout_s):
            ceiling.seed(env)
            return self.zygote.fork(env, address, timeout_s)

        def close(self):
            pass

    service = ZygoteService(current, ceiling)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(forked, "Zygote", Shared)
        mp.setattr(served_zygote, "from_env", lambda: None)  # here: Shared, without a socket
        mp.setenv(envvars.ZYGOTE_AT_ENV, service.address)  # the processes tests start
        yield Shared
    service.close()
    for zygote in made:
        zygote.close()
