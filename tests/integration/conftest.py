"""The integration tier's own fixture: one zygote per session for the job managers its tests
start (the unit tier builds zygotes by hand to test their rules, and starts none)."""

from __future__ import annotations

import os

import pytest

from runtime_lab.runner import forked

OWN_ZYGOTE = forked.Zygote  # the lab's, one per manager (session_zygote shares one instead)


@pytest.fixture(scope="session", autouse=True)
def session_zygote():
    """One zygote for every job manager of the session (per xdist worker), where a manager
    started its own: torch imported and the compiler warmed once, not once per test (a zygote
    start is an interpreter, torch's import and a small compile: seconds of the 2 cores). Workers
    are still forked per manager and stopped by its close(), which leaves the zygote running;
    one broken by a test is replaced. A test about the zygote itself is marked `own_zygote`.
    LAB_TESTS_OWN_ZYGOTE=1 gives every manager its own, as the lab does (to compare)."""
    if os.environ.get("LAB_TESTS_OWN_ZYGOTE") == "1":
        yield None
        return
    own = OWN_ZYGOTE
    made: list = []

    class Shared:
        """What a manager holds: the session's zygote, whose close() is the session's to do."""

        def __init__(self):
            if not made or made[-1].broken or made[-1].no_forks:  # closed, dead or given up
                made.append(own())
            self.zygote = made[-1]

        def __getattr__(self, name):
            return getattr(self.zygote, name)

        def close(self):
            pass

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(forked, "Zygote", Shared)
        yield Shared
    for zygote in made:
        zygote.close()


@pytest.fixture(autouse=True)
def own_zygote(request, monkeypatch):
    """`own_zygote`: this test's managers start their own zygote, as the lab does."""
    if request.node.get_closest_marker("own_zygote"):
        monkeypatch.setattr(forked, "Zygote", OWN_ZYGOTE)
