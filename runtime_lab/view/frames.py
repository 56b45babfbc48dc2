"""Typed results → tidy (long-form) DataFrames, one row per observation."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from runtime_lab.results import Timing, stats
from runtime_lab.view.fmt import fmt_bytes

# per series in a chart: more marks than pixels add megabytes to the page, not information
MAX_CHART_POINTS = 2000


def timing_samples(timings: Iterable[Timing]) -> pd.DataFrame:
    """One row per sample: label, which clock, sample index, time_ms."""
    rows = []
    for t in timings:
        for kind, samples in (("device", t.device_ms), ("host", t.host_ms)):
            rows += [
                {"label": t.label, "clock": kind, "sample": i, "time_ms": v}
                for i, v in enumerate(samples)
            ]
    return pd.DataFrame(rows, columns=["label", "clock", "sample", "time_ms"])


def downsample(
    frame: pd.DataFrame, by: list[str], value: str, max_points: int = MAX_CHART_POINTS
) -> pd.DataFrame:
    """At most `max_points` rows per group for a chart: evenly spaced rows plus the group's min
    and max of `value`. Statistics and downloads use the raw rows, never these."""
    if frame.empty or frame.groupby(by).size().max() <= max_points:
        return frame
    keep: list = []
    for _, group in frame.groupby(by, sort=False):
        if len(group) <= max_points:
            keep += list(group.index)
            continue
        spaced = np.linspace(0, len(group) - 1, max_points - 2).round().astype(int)
        keep += {*group.index[spaced], group[value].idxmin(), group[value].idxmax()}
    return frame.loc[sorted(keep)]


def timing_summary(timings: Iterable[Timing]) -> pd.DataFrame:
    """Per label and clock: median, quartiles, IQR, count, noisy flag, and the first call apart."""
    rows = []
    for t in timings:
        for kind, samples in (("device", t.device_ms), ("host", t.host_ms)):
            s = stats(samples)
            if s is None:
                continue
            rows.append(
                {
                    "label": t.label,
                    "clock": kind,
                    "median_ms": s.median,
                    "q1_ms": s.q1,
                    "q3_ms": s.q3,
                    "iqr_ms": s.iqr,
                    "min_ms": s.minimum,
                    "max_ms": s.maximum,
                    "count": s.count,
                    "noisy": s.noisy,
                    "first_call_ms": t.first_call_ms,
                    "warmup": t.warmup,
                    "repeat": t.repeat,
                    "l2_flush": t.l2_flush,
                }
            )
    return pd.DataFrame(rows)


def _fmt_bytes(value: Any) -> str | None:
    return fmt_bytes(value) if isinstance(value, (int, float)) else None


def environment_frame(env: dict[str, Any] | None) -> pd.DataFrame:
    """The environment fingerprint as field/value rows (first GPU expanded)."""
    env = env or {}
    gpus = env.get("gpus") or []
    gpu = gpus[0] if gpus else {}
    rows = [
        ("GPU", f"{gpu.get('name')} ×{len(gpus)}" if gpu else "none (CPU only)"),
        ("compute capability", gpu.get("compute_capability")),
        ("SMs", gpu.get("sm_count")),
        ("GPU memory", _fmt_bytes(gpu.get("memory_bytes"))),
        ("driver", env.get("driver")),
        ("CUDA runtime", env.get("cuda_runtime")),
        ("torch", env.get("torch")),
        ("triton", env.get("triton")),
        ("python", env.get("python")),
        ("host CPU", env.get("host_cpu")),
        ("host cores", env.get("host_cores")),
        ("host RAM", _fmt_bytes(env.get("host_ram_bytes"))),
        ("host last-level cache", _fmt_bytes(env.get("host_llc_bytes"))),
    ]
    return pd.DataFrame(
        [(k, "—" if v is None else str(v)) for k, v in rows], columns=["field", "value"]
    )


def spec_frame(spec: dict[str, Any]) -> pd.DataFrame:
    """The run's inputs as field/value rows (shape, dtype, device, mode options, counts)."""
    rows = [
        ("experiment", spec.get("experiment")),
        ("shape", "x".join(str(d) for d in spec.get("shape", []))),
        ("dtype", spec.get("dtype")),
        ("device (asked)", spec.get("device")),
        ("warm-up calls", spec.get("warmup")),
        ("timed calls", spec.get("repeat")),
        ("L2 flush", spec.get("l2_flush")),
        ("seed", spec.get("seed")),
    ]
    rows += [(f"option {k}", v) for k, v in (spec.get("options") or {}).items()]
    return pd.DataFrame([(k, str(v)) for k, v in rows], columns=["field", "value"])
