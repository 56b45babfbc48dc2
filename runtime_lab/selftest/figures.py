"""A self-test has no headline figures: its CLI JSON carries the result alone."""

from __future__ import annotations

from typing import Any

from runtime_lab.selftest.result import SelftestResult


def key_figures(result: SelftestResult) -> dict[str, Any] | None:
    return None
