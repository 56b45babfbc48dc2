"""What a page shows of a finished run: headline, metrics, charts, tables, notes, downloads."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import altair as alt
import pandas as pd

from runtime_lab.record import Run


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
    # which tab a chart, table or code block (by its title) is drawn in (TAB_ORDER); a title
    # not named here: charts under "Charts", tables and code under "Raw"
    tabs: Mapping[str, str] = field(default_factory=dict)


# the page's tabs, in order: Summary holds the headline figures, checks and notes; Raw the
# tables no other tab claims, provenance and downloads
TAB_ORDER = ("Summary", "Kernels", "Timing", "Compile", "Memory", "Charts", "Raw")


def in_tab(tab: str, items: tuple | list) -> dict[str, str]:
    """Every (title, …) item in one tab: an experiment whose charts all show one thing."""
    return {item[0]: tab for item in items}


def tab_of(report: Report, title: str, kind: str) -> str:
    """The tab an item of `report` is drawn in."""
    named = report.tabs.get(title)
    if named in TAB_ORDER:
        return named
    return "Charts" if kind == "chart" else "Raw"


def run_json(run: Run | Mapping[str, Any]) -> bytes:
    """The run's JSON document (Run.document: the keys the CLI's --json writes)."""
    return json.dumps(Run.of(run).document(), indent=2, default=str).encode()


def run_json_download(run: Run | Mapping[str, Any]) -> tuple[str, str, bytes, str]:
    run = Run.of(run)
    name = f"run-{'latest' if run.id is None else run.id}.json"
    return ("Run JSON", name, run_json(run), "application/json")


def not_done(run: Run) -> Report:
    """A run that failed, was refused or cancelled: its reason and its JSON, nothing else."""
    return Report(
        headline=f"{run.spec['experiment']}: {run.status}",
        ok=False,
        notes=(run.error or "no reason recorded",),
        downloads=(run_json_download(run),),
    )
