"""Fusion's compile evidence: each compiled mode compiled once more, cold, with the trace on."""

from __future__ import annotations

from dataclasses import replace

from runtime_lab.compiler.log import CompileEvidence
from runtime_lab.fusion.result import ModeResult
from runtime_lab.fusion.run.modes import INDUCTOR_MODES, build
from runtime_lab.lab import compile_tools as ct
from runtime_lab.lab.compile_trace import capture, evidence
from runtime_lab.spec import RunSpec

TRACED = (*INDUCTOR_MODES, "dynamo-eager")


def add_evidence(results: list[ModeResult], spec: RunSpec, inputs: tuple, ctx) -> list[ModeResult]:
    """A cold compile of each compiled mode under the structured trace and Inductor's provenance
    tracking, after every timed phase: the trace writes every graph and the generated code, so it
    would slow the compiles whose latency the job reports (and a warm cache would skip the
    lowering that provenance comes from). cuda-graph-inductor captures the inductor mode's code:
    it shares that mode's evidence."""
    found: dict[str, CompileEvidence] = {}
    for mode in [m for m in results if m.ran and m.mode in TRACED]:
        ctx.progress(f"{mode.mode}: compile trace and provenance", None, None)
        found[mode.mode] = _traced_compile(mode.mode, spec, inputs)
    if any(m.ran and m.mode == "cuda-graph-inductor" for m in results) and "inductor" not in found:
        found["cuda-graph-inductor"] = _traced_compile("inductor", spec, inputs)
    found.setdefault("cuda-graph-inductor", found.get("inductor"))
    return [replace(m, compile_evidence=found.get(m.mode)) if m.ran else m for m in results]


def _traced_compile(mode: str, spec: RunSpec, inputs: tuple) -> CompileEvidence:
    try:
        with ct.fresh_cache_dirs(spec.device), capture(mode) as trace:
            ct.reset()
            build(mode, spec, inputs, fresh=True)()
        return evidence(trace)
    except Exception as exc:  # the timings stand; say why there is no evidence
        return CompileEvidence(note=f"compile trace failed: {type(exc).__name__}: {exc}"[:500])
