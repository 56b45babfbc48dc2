"""Compile evidence as tables: kernels joined to source and timing, compile ids with guards."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from runtime_lab.compiler.log import CompileEvidence
from runtime_lab.results import KernelRow

KERNEL_COLUMNS = [
    "mode",
    "kernel",
    "fuses (ATen)",
    "lowered to",
    "user source",
    "device or CPU µs per call",
    "launches per call",
    "compile id",
    "from",
]
COMPILE_COLUMNS = [
    "mode",
    "compile id",
    "status",
    "guards",
    "guard check µs",
    "recompile reason",
    "graph breaks",
    "compile s",
    "tlparse folder",
]


def _ran(name: str, rows: tuple[KernelRow, ...]) -> KernelRow | None:
    """The profiled kernel a generated one became: the profiler names a C++ kernel
    graph_0_cpp_fused_…, a Triton kernel by its own name."""
    for row in rows:
        if row.name == name or row.name.endswith(f"_{name}"):
            return row
    return None


def kernel_sources(items: Iterable[tuple[str, CompileEvidence | None, tuple]]) -> pd.DataFrame:
    """One row per generated kernel per mode: (mode, evidence, profiled kernel rows) in."""
    rows = []
    for mode, found, profiled in items:
        for k in found.kernels if found else ():
            ran = _ran(k.kernel, profiled)
            rows.append(
                {
                    "mode": mode,
                    "kernel": k.kernel,
                    "fuses (ATen)": ", ".join(k.aten_ops),
                    "lowered to": ", ".join(k.post_grad_ops),
                    "user source": " | ".join(k.source_lines),
                    "device or CPU µs per call": ran.total_us if ran else None,
                    "launches per call": ran.calls_per_run if ran else None,
                    "compile id": k.compile_id,
                    "from": k.origin,
                }
            )
    return pd.DataFrame(rows, columns=KERNEL_COLUMNS)


def compile_ids(items: Iterable[tuple[str, CompileEvidence | None]]) -> pd.DataFrame:
    """One row per compile id per mode, as the trace recorded it."""
    rows = []
    for mode, found in items:
        for c in found.compiles if found else ():
            rows.append(
                {
                    "mode": mode,
                    "compile id": c.compile_id,
                    "status": c.status,
                    "guards": c.guard_count,
                    "guard check µs": c.guard_latency_us,
                    "recompile reason": c.recompile_reason or c.fail_reason or "",
                    "graph breaks": c.graph_breaks,
                    "compile s": c.dynamo_s,
                    "tlparse folder": c.report_dir,
                }
            )
    return pd.DataFrame(rows, columns=COMPILE_COLUMNS)


def break_sites(found: CompileEvidence) -> pd.DataFrame:
    """One row per logged graph break: user line, reason, explanation, hint, id."""
    rows = [
        {
            "compile id": b.compile_id,
            "user line": b.user_line,
            "reason": b.reason,
            "explanation": b.explanation,
            "hint": b.hint,
            "graph-break id": b.gb_id or "— (this torch names none)",
            "explained at": b.url or "",
        }
        for b in found.graph_breaks
    ]
    return pd.DataFrame(rows)


def guard_text(found: CompileEvidence) -> str | None:
    """Every compile id's guard tree, one after the other, headed by its id and report folder."""
    parts = [
        f"# [{c.compile_id}] {c.status}, {c.guard_count} guards (tlparse: {c.report_dir})\n{c.guards}"
        for c in found.compiles
        if c.guards
    ]
    return "\n\n".join(parts) or None


def downloads(mode: str, found: CompileEvidence | None) -> list[tuple[str, str, bytes, str]]:
    """The tlparse report (zip) and the raw structured trace, where their files still exist."""
    out = []
    if found is None:
        return out
    for path, label, suffix, mime in (
        (found.report_file, f"tlparse report: {mode}", "tlparse.zip", "application/zip"),
        (found.trace_file, f"Compile trace: {mode}", "torch-trace.log", "text/plain"),
    ):
        if path and Path(path).is_file():
            out.append((label, f"{mode}-{suffix}", Path(path).read_bytes(), mime))
    return out


def notes(items: Iterable[tuple[str, CompileEvidence | None]]) -> list[str]:
    """What the evidence lacks and why, once per distinct reason."""
    found = {}
    for mode, evidence in items:
        if evidence is not None and evidence.note:
            found.setdefault(evidence.note, []).append(mode)
    return [f"Compile evidence ({', '.join(modes)}): {note}." for note, modes in found.items()]
