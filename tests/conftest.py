"""Shared fixtures: an isolated data directory per test, and skipping `gpu` tests without CUDA."""

from __future__ import annotations

import pytest
import torch


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
