"""Self-tests side by side: no key figures, no charts (a worker diagnostic, not a measurement)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runtime_lab.selftest.result import SelftestResult

LABELS: dict[str, Any] = {}
UNITS: dict[str, str] = {}
IGNORED: tuple[str, ...] = ()


def samples(result: SelftestResult) -> dict[str, tuple[float, ...]]:
    return {}


def charts(results: Sequence[tuple[str, SelftestResult]]) -> list[tuple[str, Any]]:
    return []
