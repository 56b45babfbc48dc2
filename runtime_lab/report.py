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
