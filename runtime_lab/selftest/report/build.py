"""A self-test job drawn: which behaviour ran, in which worker process."""

from __future__ import annotations

from typing import Any

from runtime_lab.report import Metric, Report
from runtime_lab.selftest.result import SelftestResult


def build(run: dict[str, Any], result: SelftestResult) -> Report:
    return Report(
        headline=f"selftest {result.behaviour}: ok",
        ok=True,
        metrics=(Metric("worker pid", str(result.pid)), Metric("slept", f"{result.slept_s:g} s")),
    )
