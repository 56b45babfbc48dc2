"""The unit tier's guard: a test here that starts a worker, a process or a compile fails loudly."""

from __future__ import annotations

import multiprocessing
import subprocess

import pytest
import torch

from runtime_lab.runner.process import WorkerProcess

MESSAGE = (
    "unit tests must not start workers/processes/compiles: move this test to tests/integration"
)


def _refuse(*args, **kwargs):
    raise AssertionError(MESSAGE)


@pytest.fixture(autouse=True)
def no_workers_processes_or_compiles(monkeypatch):
    """Raise instead of starting one: the unit tier must stay fast and run in parallel, so the
    slow kinds of work are caught where they start, not found later in the tier's time."""
    monkeypatch.setattr(WorkerProcess, "start", _refuse)
    monkeypatch.setattr(subprocess, "Popen", _refuse)
    monkeypatch.setattr(multiprocessing.Process, "start", _refuse)
    monkeypatch.setattr(torch, "compile", _refuse)
