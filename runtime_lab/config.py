"""Where the lab keeps its data and how long a job may run, from the environment."""

from __future__ import annotations

import json
import os
from pathlib import Path

DATA_DIR_ENV = "RUNTIME_LAB_DATA_DIR"
JOB_TIMEOUT_ENV = "RUNTIME_LAB_JOB_TIMEOUT_S"
DEFAULT_JOB_TIMEOUT_S = 600.0
CEILING_FILE = "copy-ceiling.json"  # written by the worker, one entry per device and torch


def data_dir(override: str | os.PathLike | None = None) -> Path:
    """The data directory: explicit override, then $RUNTIME_LAB_DATA_DIR, then ./.runtime_lab."""
    raw = override or os.environ.get(DATA_DIR_ENV) or ".runtime_lab"
    path = Path(raw).expanduser().resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path


def job_timeout_s() -> float:
    """Per-job timeout; a bad value in the environment falls back to the default."""
    try:
        value = float(os.environ.get(JOB_TIMEOUT_ENV, DEFAULT_JOB_TIMEOUT_S))
    except ValueError:
        return DEFAULT_JOB_TIMEOUT_S
    return value if value > 0 else DEFAULT_JOB_TIMEOUT_S


# Run artefacts (Chrome traces, memory snapshots) are kept for downloads; the newest this many
# per folder stay, so a long-lived lab's disk use is bounded (an older run's report simply
# offers no trace download).
ARTEFACT_FOLDERS = ("traces", "allocator")
KEEP_ARTEFACTS = 300


def prune_artefacts(root: Path, keep: int = KEEP_ARTEFACTS) -> int:
    """Delete all but the newest `keep` files in each artefact folder; returns how many went."""
    removed = 0
    for name in ARTEFACT_FOLDERS:
        folder = root / name
        if not folder.is_dir():
            continue
        files = sorted(
            (p for p in folder.iterdir() if p.is_file()),
            key=lambda p: p.stat().st_mtime,
            reverse=True,
        )
        for old in files[keep:]:
            old.unlink(missing_ok=True)
            removed += 1
    return removed


def load_ceilings(data_dir: Path) -> dict[str, float]:
    """Measured copy ceilings (GB/s) by 'device | torch', for the sidebar; {} if none yet."""
    try:
        data = json.loads((Path(data_dir) / CEILING_FILE).read_text())
        return {key: float(entry["gbps"]) for key, entry in data.items()}
    except (OSError, ValueError, KeyError, TypeError):
        return {}
