"""The workload's eager vs compiled peak per shape as tidy frames (no torch)."""

from __future__ import annotations

import pandas as pd

from runtime_lab.allocator.result import AllocatorResult, WorkloadPeak

MIB = 2**20
SERIES = ("ideal", "eager", "compiled")  # drawn in this order, top to bottom within a shape
LONG = ["shape", "series", "bytes", "MiB", "above_inputs_bytes", "input_bytes", "x_ideal"]
TABLE = [
    "shape",
    "dtype",
    "inputs_MiB",
    "output_MiB",
    "ideal_MiB",
    "eager_peak_MiB",
    "compiled_peak_MiB",
    "eager_x_ideal",
    "compiled_x_ideal",
    "compile_saved_MiB",
    "warm_call_s",
    "compiles",
    "max_abs_diff",
    "error",
]


def ran(p: WorkloadPeak) -> bool:
    return p.error is None and p.input_bytes is not None and p.output_bytes is not None


def measured(p: WorkloadPeak) -> bool:
    """Both peaks read from the allocator (CUDA): a CPU run has none to read, never zeros."""
    return ran(p) and p.eager_peak_bytes is not None and p.compiled_peak_bytes is not None


def ideal(p: WorkloadPeak) -> int:
    """The least one call can hold: its inputs, and its output written once."""
    return p.input_bytes + p.output_bytes


def peaks_long(result: AllocatorResult) -> pd.DataFrame:
    """Per measured shape: ideal, eager and compiled peak of one call, inputs included."""
    rows = []
    for p in filter(measured, result.peaks):
        above = (p.output_bytes, p.eager_peak_bytes, p.compiled_peak_bytes)
        for series, extra in zip(SERIES, above, strict=True):
            total = p.input_bytes + extra
            rows.append(
                {
                    "shape": p.label,
                    "series": series,
                    "bytes": total,
                    "MiB": total / MIB,
                    "above_inputs_bytes": extra,
                    "input_bytes": p.input_bytes,
                    "x_ideal": total / ideal(p),
                }
            )
    return pd.DataFrame(rows, columns=LONG)


def _mib(value: int | None) -> float | None:
    return None if value is None else value / MIB


def _row(p: WorkloadPeak) -> dict:
    row = dict.fromkeys(TABLE)
    row |= {"shape": p.label, "dtype": p.dtype, "error": p.error}
    if not ran(p):
        return row
    e, c = p.eager_peak_bytes, p.compiled_peak_bytes
    row |= {
        "inputs_MiB": p.input_bytes / MIB,
        "output_MiB": p.output_bytes / MIB,
        "ideal_MiB": ideal(p) / MIB,
        "eager_peak_MiB": None if e is None else (p.input_bytes + e) / MIB,
        "compiled_peak_MiB": None if c is None else (p.input_bytes + c) / MIB,
        "warm_call_s": p.warm_s,
        "compiles": p.compiles,
        "max_abs_diff": p.max_abs_diff,
    }
    if measured(p):
        row["eager_x_ideal"] = (p.input_bytes + e) / ideal(p)
        row["compiled_x_ideal"] = (p.input_bytes + c) / ideal(p)
        row["compile_saved_MiB"] = (e - c) / MIB
    return row


def peaks_table(result: AllocatorResult) -> pd.DataFrame:
    """One row per shape: the ideal, both peaks (inputs included; empty without CUDA), how
    many times the ideal, what compile saved, the warm call's compile, eager vs compiled."""
    return pd.DataFrame([_row(p) for p in result.peaks], columns=TABLE)
