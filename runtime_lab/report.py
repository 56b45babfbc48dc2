"""A finished run → what a page shows: headline, metrics, charts, tables, notes, downloads."""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import altair as alt
import pandas as pd

from runtime_lab.results import result_from_record


@dataclass(frozen=True)
class Metric:
    label: str
    value: str
    help: str | None = None


@dataclass(frozen=True)
class Report:
    headline: str
    ok: bool
    metrics: tuple[Metric, ...] = ()
    charts: tuple[tuple[str, alt.TopLevelMixin], ...] = ()
    tables: tuple[tuple[str, pd.DataFrame], ...] = ()
    notes: tuple[str, ...] = ()
    downloads: tuple[tuple[str, str, bytes, str], ...] = field(default_factory=tuple)
    code: tuple[tuple[str, str, str], ...] = ()  # (title, language, source)
    warnings: tuple[str, ...] = ()  # states a reader must not miss, e.g. a limit that was hit


def fmt_ms(value: float) -> str:
    """Milliseconds with a unit that keeps three significant digits readable."""
    if value < 1e-3:
        return f"{value * 1e6:.0f} ns"
    if value < 1:
        return f"{value * 1e3:.1f} µs"
    return f"{value:.3f} ms"


def run_json(run: dict[str, Any]) -> bytes:
    keys = (
        "id",
        "status",
        "spec",
        "env",
        "device",
        "result",
        "error",
        "created_at",
        "started_at",
        "finished_at",
    )
    return json.dumps({k: run.get(k) for k in keys}, indent=2, default=str).encode()


def _streams(run: dict[str, Any], result: Any) -> Report:
    from runtime_lab.report_streams import build as build_streams  # it imports this module

    return build_streams(run, result)


def _selftest(run: dict[str, Any], result: Any) -> Report:
    return Report(
        headline=f"selftest {result.behaviour}: ok",
        ok=True,
        metrics=(Metric("worker pid", str(result.pid)), Metric("slept", f"{result.slept_s:g} s")),
    )


def _fusion(run: dict[str, Any], result: Any) -> Report:
    from runtime_lab.report_fusion import build as build_fusion  # it imports this module

    return build_fusion(run, result)


def _recompiles(run: dict[str, Any], result: Any) -> Report:
    from runtime_lab.report_recompiles import build as build_recompiles  # it imports this module

    return build_recompiles(run, result)


def _allocator(run: dict[str, Any], result: Any) -> Report:
    from runtime_lab.report_allocator import build as build_allocator  # it imports this module

    return build_allocator(run, result)


BUILDERS: dict[str, Callable[[dict[str, Any], Any], Report]] = {
    "fusion": _fusion,
    "recompiles": _recompiles,
    "allocator": _allocator,
    "streams": _streams,
    "selftest": _selftest,
}


def build(run: dict[str, Any]) -> Report:
    """The report for a run dict (keys spec, env, status, result, error, …)."""
    experiment = run["spec"]["experiment"]
    if run.get("status") != "done":
        return Report(
            headline=f"{experiment}: {run.get('status')}",
            ok=False,
            notes=(run.get("error") or "no reason recorded",),
            downloads=(
                (
                    "Run JSON",
                    f"run-{run.get('id', 'latest')}.json",
                    run_json(run),
                    "application/json",
                ),
            ),
        )
    result = result_from_record(experiment, run.get("result"))
    return BUILDERS[experiment](run, result)


# experiment → module with key_figures(result): the CLI JSON's headline numbers
SUMMARIES = {
    "fusion": "runtime_lab.fusion_summary",
    "recompiles": "runtime_lab.recompiles_summary",
    "streams": "runtime_lab.streams_summary",
}
SUMMARIES["allocator"] = "runtime_lab.allocator_summary"


def summary(run: dict[str, Any]) -> dict[str, Any] | None:
    """Headline figures of a finished run, for the CLI JSON (None where an experiment has none)."""
    experiment = run["spec"]["experiment"]
    if run.get("status") != "done" or experiment not in SUMMARIES:
        return None
    module = importlib.import_module(SUMMARIES[experiment])  # lazy: keeps imports light
    return module.key_figures(result_from_record(experiment, run["result"]))
