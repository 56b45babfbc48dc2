"""The integration tier's fixtures: the session's zygote for every job manager, CLI and server its
tests start (tests/conftest.py), the `own_zygote` marker for tests of the zygote itself and
`cold_caches` for a bar timed with empty caches."""

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


@pytest.fixture(autouse=True)
def cold_caches(request, session_zygote):
    """`cold_caches`: this test's workers measure the memory ceiling themselves (a bar timed with
    empty caches), where the others get the session's (zygote_service.SharedCeiling)."""
    if session_zygote is None or not request.node.get_closest_marker("cold_caches"):
        yield
        return
    session_zygote.ceiling_share.off = True
    yield
    session_zygote.ceiling_share.off = False
