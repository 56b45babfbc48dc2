"""The integration tier's fixtures: the session's zygote for every job manager, CLI and server its
tests start (tests/conftest.py), and the `own_zygote` marker for tests of the zygote itself."""

from __future__ import annotations

import pytest
from zygote_service import LAB_ZYGOTE

from runtime_lab import envvars
from runtime_lab.runner import forked


@pytest.fixture(scope="session", autouse=True)
def shared_zygote(session_zygote):
    """Every test of this tier shares the session's zygote (the unit tier starts none)."""
    return session_zygote


@pytest.fixture(autouse=True)
def own_zygote(request, monkeypatch):
    """`own_zygote`: this test's managers, CLIs and servers start their own zygote (or their
    own worker, as the CLI does), as the lab does."""
    if request.node.get_closest_marker("own_zygote"):
        monkeypatch.setattr(forked, "Zygote", LAB_ZYGOTE)
        monkeypatch.delenv(envvars.ZYGOTE_AT_ENV, raising=False)
