"""The browser tests' server helpers, re-exported from benchmarks/serving.py (the one copy)."""

from benchmarks.serving import (
    CHROMIUM,
    CHROMIUM_ARGS,
    REPO,
    free_port,
    healthy,
    start_server,
    stop_server,
)

__all__ = [
    "CHROMIUM",
    "CHROMIUM_ARGS",
    "REPO",
    "free_port",
    "healthy",
    "start_server",
    "stop_server",
]
