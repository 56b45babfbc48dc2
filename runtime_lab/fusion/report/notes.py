"""Fusion report notes: failed modes, the kernels launched, stale phases, sweep gaps, evidence."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from runtime_lab.compiler import frames as cf
from runtime_lab.fusion.report import checks, compile_cache, sweep
from runtime_lab.fusion.result import FusionResult
from runtime_lab.view.fmt import fmt_seconds

# said of any workload: the run's own kernels are listed by _kernel_note
CPU_NOTE = (
    "On CPU the kernel lists are the profiler's CPU ops: the aten ops eager dispatches, and for "
    "a compiled mode the C++ kernels Inductor generated (graph_N_cpp_fused_…) beside any aten "
    "op it left as a library call. Device timing (CUDA events), CUDA graphs and Triton kernels "
    "need CUDA; the times here are host wall time of synchronous calls."
)

EVIDENCE_NOTE = (
    "Compile evidence comes from one more cold compile of each compiled mode after everything "
    "was timed, with the structured trace (TORCH_TRACE's format) and Inductor's provenance "
    "tracking on: same code, same kernel names, but not the compile whose latency is shown. "
    "Unzip the tlparse report and open tlparse/index.html; each compile id has its folder."
)


def _fused_ops(name: str) -> str | None:
    found = re.search(r"fused_((?:[a-z0-9]+_)*[a-z0-9]+?)_\d+$", name)
    return ", ".join(found.group(1).split("_")) if found else None


def _launches(result, mode: str | None) -> str:
    found = next((m for m in result.modes if m.mode == mode), None)
    count = found.kernel_count if found and found.kernel_count is not None else 0
    return f"{count:g} launch{'es' if count != 1 else ''} per call"


def _kernel_note(key: Mapping[str, Any], result) -> str | None:
    eager, compiled = key["eager_kernel_names"], key["compiled_kernel_names"]
    if not (eager and compiled):
        return None
    # distinct names: x - y runs as the same add kernel as x + y (alpha = -1)
    text = f"Eager: {_launches(result, 'eager')} of {len(eager)} distinct kernels ({', '.join(eager)}). "
    text += (
        f"{key['compiled_mode']}: {_launches(result, key['compiled_mode'])} ({', '.join(compiled)})"
    )
    ops = [_fused_ops(n) for n in compiled if _fused_ops(n)]
    if ops:
        text += f" (one generated kernel fusing {ops[0]})"
    return text + "."


def notes(
    run: dict[str, Any], result: FusionResult, key: Mapping[str, Any], modes, compile_long
) -> list[str]:
    """Errors, fusing that did not pay, the kernels, stale phases, skipped sizes, the checks'."""
    notes = [f"{m.mode}: {m.error}" for m in result.modes if m.error]
    eager_ms = key["steady_state_ms"].get("eager")
    counts = dict(zip(modes["mode"], modes["kernels_per_call"], strict=True))
    for row in modes[modes["fewer_kernels_but_slower"]].itertuples():
        notes.append(
            f"{row.mode} launches fewer kernels than eager ({row.kernels_per_call:g} vs "
            f"{counts.get('eager', 0):g} per call) yet "
            f"takes longer per call ({row.steady_state_ms:.4g} ms vs {eager_ms:.4g} ms): "
            "fusing did not pay off at this size on this device."
        )
    kernel_note = _kernel_note(key, result)
    if kernel_note:
        notes.append(kernel_note)
    if result.device == "cpu":
        notes.append(CPU_NOTE)
    stale = compile_long[compile_long["phases_stale"]].drop_duplicates(["mode", "scenario"])
    for row in stale.itertuples():
        notes.append(
            f"{row.mode} · {row.scenario}: the recorded compile phases are longer than the call "
            f"({fmt_seconds(row.first_call_s)}), so they belong to an earlier compile; the chart "
            "counts the whole call as 'other'."
        )
    notes += checks.mega_cache_notes(result)
    for m in result.modes:
        if m.break_reasons:
            notes.append(f"{m.mode} graph breaks: {'; '.join(m.break_reasons)}")
    asked = (run["spec"].get("options") or {}).get("sweep") or ""
    done = {p.side for p in result.sweep}
    missing = [s for s in asked.split(",") if s and int(s) not in done]
    if missing:
        notes.append(f"Sweep sizes skipped (did not fit in free memory): {', '.join(missing)}")
    notes += sweep.notes(result)
    extra = checks.naive_note(result, key) + checks.first_call_note(key)
    extra += checks.host_bound_note(result, modes)
    extra += cf.notes((m.mode, m.compile_evidence) for m in result.modes)
    extra += compile_cache.from_line(result.compile_from_run)  # what the two lines below are of
    if any(m.compile_evidence for m in result.modes):
        extra.append(EVIDENCE_NOTE)
    return notes + extra + list(result.notes)
