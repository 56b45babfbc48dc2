"""The order of a job's timed phases and tool sessions, for the tests that a tool never precedes timing."""

from __future__ import annotations

import torch

TOOL = "tool: "
TIMED = "timed: "


class CallOrder:
    """The order of a job's timed phases and tool sessions (profiler, memory history, CSAN)."""

    def __init__(self, monkeypatch):
        self.log: list[str] = []
        self.mp = monkeypatch

    def wrap(self, owner, name: str, tag: str, when=None) -> None:
        """Log `tag` at each call of owner.name (when when(*args, **kwargs) holds), then call it."""
        original = getattr(owner, name)

        def wrapped(*args, **kwargs):
            if when is None or when(*args, **kwargs):
                self.log.append(tag)
            return original(*args, **kwargs)

        self.mp.setattr(owner, name, wrapped)

    def watch_tools(self) -> None:
        """The entry points every tool goes through, wherever the lab calls it from."""
        self.wrap(torch.profiler.profile, "__enter__", TOOL + "profiler")
        self.wrap(torch.autograd.profiler.profile, "__enter__", TOOL + "autograd profiler")
        # what every profiler front end (also prof.start() without `with`) enables through
        self.wrap(torch.autograd.profiler, "_enable_profiler", TOOL + "profiler enabled")
        self.wrap(
            torch.cuda.memory,
            "_record_memory_history",
            TOOL + "memory history",
            when=lambda *a, **k: k.get("enabled", a[0] if a else "all") is not None,
        )
        # not the sanitizer: importing torch.cuda._sanitizer alone turns on GPU-trace callbacks
        # for every launch of this process (docs/evidence/gpu.md); the lab never imports it

    def timed(self) -> list[str]:
        return [e for e in self.log if e.startswith(TIMED)]

    def assert_timed_first(self) -> None:
        assert self.timed(), self.log
        tools = [i for i, e in enumerate(self.log) if e.startswith(TOOL)]
        last_timed = max(i for i, e in enumerate(self.log) if e.startswith(TIMED))
        assert not tools or tools[0] > last_timed, self.log
