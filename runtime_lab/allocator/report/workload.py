"""What an allocator run says about its workload: eager vs compiled peak against the ideal."""

from __future__ import annotations

from typing import Any

from runtime_lab.allocator.report import peak as pf
from runtime_lab.allocator.report import peak_chart
from runtime_lab.allocator.result import AllocatorResult, WorkloadPeak
from runtime_lab.glossary import registry as glossary
from runtime_lab.report import Metric
from runtime_lab.view.fmt import fmt_bytes
from runtime_lab.workloads.registry import look_for

SAME = 0.05  # within 5 % of eager's peak (or 1 MiB) compile "changed little"
WHY_CHART = [
    "One eager and one torch.compile (Inductor) call per shape, peaks reset before each; eager "
    "and compiled each ran once unmeasured first (compile, cuBLAS workspace): not counted.",
    "Ideal: the inputs, plus the output written once: what a call that materialises no "
    "intermediate holds. Labels: × the ideal. max_memory_allocated counts 512-byte blocks.",
]
CPU_WHY = (
    "Eager vs compiled peak needs CUDA: the CPU allocator keeps no peak statistics "
    "(torch.cuda.reset_peak_memory_stats / max_memory_allocated), so no peak is reported here "
    "(never a zero)."
)
# said of any workload: what happened is _outcome's, with the run's own figures
EXPECT = (
    "Expected: eager materialises each intermediate its ops write, so its peak sits above the "
    "ideal (inputs + output); what Inductor fuses holds little more than its output, while an "
    "op it leaves to a library (a GEMM) keeps its own output and workspace."
)


def notes_for(result: AllocatorResult) -> dict[str, str]:
    """The compiled scenario's line over its timeline, for runs since the catalog."""
    if not result.workload:
        return {}
    return {
        "compiled": "per shape: eager once untimed and once measured, then compiled once warm "
        "(a compile where the shape needs one: see host RSS) and once measured"
    }


def peaks_why(result: AllocatorResult, why: list[str]) -> list[str]:
    """The Peaks chart's words: its red one-call bars, and the pointwise words that explain
    them, come with the seed's compare only (a run of another workload has its own chart)."""
    return why[:1] if result.workload and result.compare is None else why


def largest(result: AllocatorResult) -> WorkloadPeak | None:
    """The measured shape with the largest ideal: where the difference shows most."""
    found = [p for p in result.peaks if pf.measured(p)]
    return max(found, key=pf.ideal) if found else None


def _three(p: WorkloadPeak) -> tuple[int, int, int]:
    """Ideal, eager and compiled peak of one call, inputs included."""
    return pf.ideal(p), p.input_bytes + p.eager_peak_bytes, p.input_bytes + p.compiled_peak_bytes


def headline_tail(result: AllocatorResult) -> str:
    p = largest(result)
    if p is None:
        return ""
    ideal, eager, compiled = (fmt_bytes(v) for v in _three(p))
    return f" · one call at {p.label}: eager {eager} → compiled {compiled} (ideal {ideal})"


def metrics(result: AllocatorResult) -> list[Metric]:
    p = largest(result)
    if p is None:
        return []
    ideal, eager, compiled = _three(p)
    return [
        Metric(
            "one call's peak: eager → compiled",
            f"{fmt_bytes(eager)} → {fmt_bytes(compiled)}",
            glossary.help_text(
                "allocator",
                f"call_peak_bytes.{p.label}.compiled",
                f"{result.workload} at {p.label}, inputs included: {eager / ideal:.2f}× and "
                f"{compiled / ideal:.2f}× the ideal {fmt_bytes(ideal)} (inputs "
                f"{fmt_bytes(p.input_bytes)} + output {fmt_bytes(p.output_bytes)})",
            ),
        )
    ]


def _outcome(result: AllocatorResult, p: WorkloadPeak) -> str:
    out, e, c = p.output_bytes, p.eager_peak_bytes, p.compiled_peak_bytes
    where = (
        f"Here, {result.workload} at {p.label} ({p.dtype}): above its inputs "
        f"({fmt_bytes(p.input_bytes)}) eager's one call peaked at {fmt_bytes(e)}, compiled's at "
        f"{fmt_bytes(c)}, against {fmt_bytes(out)} for the output alone"
    )
    saved = e - c
    if saved > max(SAME * e, 2**20):
        return (
            f"{where}: compile removed {fmt_bytes(saved)} ({100 * saved / e:.0f} % of eager's "
            f"peak above the inputs). Eager held {fmt_bytes(e - out)} beyond the output "
            f"(intermediates it materialised), compiled {fmt_bytes(max(c - out, 0))}."
        )
    if -saved > max(SAME * e, 2**20):
        return (
            f"{where}: compiled peaked {fmt_bytes(-saved)} above eager, against the expectation: "
            "buffers the generated code allocates (split reductions' partials, a library "
            "kernel's workspace). Read the compiled scenario's snapshot for which."
        )
    if e - out > max(SAME * e, 2**20):
        return (
            f"{where}: compile changed the peak little; both held about {fmt_bytes(e - out)} "
            "beyond the output: an intermediate compile kept (a library kernel's input or output)."
        )
    return (
        f"{where}: eager already held little beyond its output, so compile had little to remove "
        "(one kernel in eager, or intermediates freed as soon as used)."
    )


def _cpu_note(result: AllocatorResult) -> str | None:
    ran = [p for p in result.peaks if pf.ran(p)]
    if not ran or any(pf.measured(p) for p in ran):
        return None
    diffs = [p.max_abs_diff for p in ran if p.max_abs_diff is not None]
    warm = sum(p.warm_s or 0.0 for p in ran)
    big = max(ran, key=pf.ideal)
    return (
        f"{CPU_WHY} What ran here: one eager and one compiled call at each of {len(ran)} "
        f"shape(s); the warm calls compiled {sum(p.compiles for p in ran)} graph(s) in "
        f"{warm:.1f} s"
        + (f"; compiled vs eager max |diff| {max(diffs):.3g}" if diffs else "")
        + f". The ideal at {big.label}: {fmt_bytes(pf.ideal(big))} (inputs "
        f"{fmt_bytes(big.input_bytes)} + output {fmt_bytes(big.output_bytes)})."
    )


def notes(result: AllocatorResult) -> list[str]:
    """What to look for (the workload's paragraph), then what happened, with the figures."""
    if not result.workload:
        return []
    found = look_for(result.workload)
    if result.params:
        found.append("Parameters: " + ", ".join(f"{k}={v}" for k, v in result.params))
    p = largest(result)
    if p is not None:
        found.append(f"{EXPECT} {_outcome(result, p)}")
    cpu = _cpu_note(result)
    found += [cpu] if cpu else []
    found += [f"Eager vs compiled at {q.label} failed: {q.error}" for q in result.peaks if q.error]
    return found


def parts(result: AllocatorResult) -> tuple[list, list, list]:
    """(charts, tables, notes) of the workload's peaks; empty for runs before the catalog."""
    if not result.workload:
        return [], [], []
    charts: list[tuple[str, Any]] = []
    long = pf.peaks_long(result)
    if not long.empty:
        title = f"{result.workload}: one call's peak per shape, eager vs compiled vs ideal"
        charts.append(("Eager vs compiled peak", peak_chart.peaks_chart(long, title, WHY_CHART)))
    tables = []
    if result.peaks:  # a column empty in every row (a CPU run's peaks, no error) is left out
        title = "Eager vs compiled per shape (MiB, inputs included)"
        if not any(map(pf.measured, result.peaks)):
            title = "Eager vs compiled per shape (MiB; the peaks need CUDA)"
        tables.append((title, pf.peaks_table(result).dropna(axis="columns", how="all")))
    return charts, tables, notes(result)
