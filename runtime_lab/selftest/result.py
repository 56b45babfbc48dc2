"""Typed result of a worker self-test job."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SelftestResult:
    behaviour: str
    slept_s: float
    pid: int


RESULT_TYPE = SelftestResult
