"""Where the lab keeps its data and how long a job may run, from the environment."""

from __future__ import annotations

import os
from pathlib import Path

DATA_DIR_ENV = "RUNTIME_LAB_DATA_DIR"
JOB_TIMEOUT_ENV = "RUNTIME_LAB_JOB_TIMEOUT_S"
DEFAULT_JOB_TIMEOUT_S = 600.0


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
