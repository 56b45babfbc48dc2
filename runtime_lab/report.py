"""What a page shows of a finished run: headline, metrics, charts, tables, notes, downloads."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
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
class Verdict:
    """Whether the figures behind a headline hold: `doubt` says in one line what not to trust,
    `ratio_range` the (low, high) the headline's ratio can take given what is in doubt."""

    ok: bool
    doubt: str | None = None
    ratio_range: tuple[float, float] | None = None
    # what the doubt already says (CLOCKS, CONTENDED, CACHE, …): a warning that would say it
    # again stays out of the Summary (it is still in the Notes)
    states: frozenset[str] = frozenset()


CLOCKS, CONTENDED, CACHE = "clocks", "contended", "cache"


@dataclass(frozen=True)
class Summary:
    """What the Summary tab shows on one screen: key figures as the pairs people compare (a pair
    of one is a single figure), the one chart (by title) that shows the headline's claim, a few
    lines of prose and warnings merged across modes; the rest goes to the other tabs or Notes."""

    pairs: tuple[tuple[Metric, ...], ...] = ()
    chart: str | None = None
    prose: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


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
    verdict: Verdict | None = None  # None: the headline states no measured ratio to doubt
    summary: Summary | None = None  # None: the Summary tab shows every metric, warning and note


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


PENDING = "pending"
STILL_TO_COME = "the rest of the figures are still to come"


def _pending_value(value: str) -> str:
    """A figure not in yet ("—" alone, or one side of "— vs 3.67×") reads "pending"."""
    return re.sub(r"(?<!\S)—(?!\S)", PENDING, value)


def _mark(metric: Metric) -> Metric:
    return replace(metric, value=_pending_value(metric.value))


def pending(report: Report) -> Report:
    """A job's report from its figures so far (its partial result): every figure not in yet
    marked pending rather than missing, and the verdict's doubt saying what is still to come,
    so that every figure shown early is the final one or says it is not."""
    summary = report.summary
    if summary is not None:
        summary = replace(summary, pairs=tuple(tuple(map(_mark, p)) for p in summary.pairs))
    verdict = report.verdict
    if verdict is not None:
        # an early "hold" is not the final word: the figures still to come can doubt it
        doubt = f"{verdict.doubt} (so far: {STILL_TO_COME})" if verdict.doubt else None
        doubt = doubt or f"Pending: the figures so far hold; {STILL_TO_COME}."
        verdict = Verdict(False, doubt, verdict.ratio_range, verdict.states)
    return replace(
        report, metrics=tuple(map(_mark, report.metrics)), summary=summary, verdict=verdict
    )
