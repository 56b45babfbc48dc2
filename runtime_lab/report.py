"""What a page shows of a finished run: headline, metrics, charts, tables, notes, downloads."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import altair as alt
import pandas as pd


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


RUN_KEYS = (
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
    "process_probe",  # the job-start probe against the worker's start-up one
    "worker",  # which worker process ran it, after how many jobs, whether fresh
)


def run_json(run: dict[str, Any]) -> bytes:
    return json.dumps({k: run.get(k) for k in RUN_KEYS}, indent=2, default=str).encode()


def run_json_download(run: dict[str, Any]) -> tuple[str, str, bytes, str]:
    return ("Run JSON", f"run-{run.get('id', 'latest')}.json", run_json(run), "application/json")


def not_done(run: dict[str, Any]) -> Report:
    """A run that failed, was refused or cancelled: its reason and its JSON, nothing else."""
    return Report(
        headline=f"{run['spec']['experiment']}: {run.get('status')}",
        ok=False,
        notes=(run.get("error") or "no reason recorded",),
        downloads=(run_json_download(run),),
    )
