"""The fusion run's report: headline, key metrics, charts, tables, notes, code and downloads."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import altair as alt

from runtime_lab.compiler import frames as cf
from runtime_lab.fusion.report import autotune as ra
from runtime_lab.fusion.report import charts as fc
from runtime_lab.fusion.report import checks, correctness, step
from runtime_lab.fusion.report import compile_cache as cache
from runtime_lab.fusion.report import frames as ff
from runtime_lab.fusion.report import kernel_table as fk
from runtime_lab.fusion.report import kernel_views as rk
from runtime_lab.fusion.report import notes as report_notes
from runtime_lab.fusion.report import summary as report_summary
from runtime_lab.fusion.report import workload as rw
from runtime_lab.fusion.report.cache import WorkingSet, working_set
from runtime_lab.fusion.report.checks import OVER_CEILING_PCT as OVER
from runtime_lab.fusion.report.figures import FusionFigures, figures, state_key
from runtime_lab.fusion.report.roofline import roofline_chart, roofline_frame, roofs_frame
from runtime_lab.fusion.report.verdict import verdict
from runtime_lab.fusion.result import EAGER_TRANSFERS, FUSED_TRANSFERS, FusionResult, ModeResult
from runtime_lab.glossary import registry as glossary
from runtime_lab.report import Metric, Report, run_json_download
from runtime_lab.view import charts
from runtime_lab.view.fmt import fmt_ms, fmt_seconds


def _count(value: float | None) -> str:
    return "—" if value is None else f"{value:g}"


def _kernels_word(value: float | None) -> str:
    return f"{_count(value)} kernel" + ("" if value == 1 else "s")


def _headline(result: FusionResult, key: Mapping[str, Any], by: dict[str, ModeResult]) -> str:
    """What ran and how fast, then each mode whose answer is wrong or which has no time."""
    return "; ".join((_speed(result, key, by), *correctness.headline_sentences(result)))


def _speed(result: FusionResult, key: Mapping[str, Any], by: dict[str, ModeResult]) -> str:
    device = "CPU" if result.device == "cpu" else result.device
    named = f" {result.variant}" if rw.catalog_run(result) or result.variant != "pointwise" else ""
    head = f"fusion{named} {device} {'x'.join(map(str, result.shape))} {result.dtype}"
    if step.stepped(result):
        head += f", {step.words(result)}"
    eager, compiled = by.get("eager"), key["compiled_mode"]
    if not compiled:
        return f"{head}: no compiled mode ran"
    counted = by[compiled].kernel_count is not None  # None: the profiler has not run yet
    if not counted:  # the early headline: times are in, kernel counts come with the evidence
        text = f"{head}: {compiled}"
    elif step.stepped(result):  # kernels by pass: "2 + 3 kernels vs eager 4 + 8"
        text = f"{head}: {compiled} {step.kernels_word(result, by[compiled])}"
    else:
        text = f"{head}: {compiled} {_kernels_word(by[compiled].kernel_count)}"
    if eager and eager.ran:
        text += f" vs eager {step.counts(result, eager)}" if counted else " vs eager"
    speedup = key["measured_speedup"]
    if speedup:
        if 0.95 <= speedup < 1.05:
            pace = f"as fast as eager ({speedup:.2f}×)"
        else:
            pace = f"{speedup:.1f}× faster" if speedup > 1 else f"{1 / speedup:.1f}× slower"
        text += f", {pace}"
    return text


def _help(path: str, detail: str | None = None) -> str | None:
    return glossary.help_text("fusion", path, detail)


def _over_why(modes, ws: WorkingSet) -> str | None:
    """Why a bar reads above the ceiling line, in this run's sizes (None: none does)."""
    return None if checks.over_ceiling(modes).empty else f"Above the ceiling: {ws.over_ceiling()}."


def _best_pct(best, ws: WorkingSet) -> str:
    if best is None:
        return "—"
    cached = " · above the ceiling: cache" if ws.fits and best["ceiling_pct"] > OVER else ""
    return f"{best['ceiling_pct']:.0f} % ({best['mode']}{cached})"


def _metrics(
    result: FusionResult, key: Mapping[str, Any], modes, by: dict[str, ModeResult], ws: WorkingSet
) -> list[Metric]:
    found = _kernel_metrics(result, key, by)
    if step.stepped(result):  # the bytes model is the forward's: step.HIDDEN_NOTE says why
        return [*found, *_step_metrics(result, key, by)]
    return [*found, *_forward_metrics(key, modes, by, ws)]


def _kernel_metrics(
    result: FusionResult, key: Mapping[str, Any], by: dict[str, ModeResult]
) -> list[Metric]:
    compiled = key["compiled_mode"]
    where = f" ({step.words(result)})" if step.stepped(result) else ""
    diff = key["max_abs_diff"]
    return [
        Metric(
            f"eager kernels/call{where}",
            step.counts(result, by["eager"]) if "eager" in by else "—",
        ),
        Metric(
            f"{compiled or 'compiled'} kernels/call{where}",
            step.counts(result, by[compiled]) if compiled else "—",
        ),
        Metric(
            "max |mode − eager|",
            "—" if diff is None else f"{diff:.3e}",
            _help("max_abs_diff"),
        ),
        *_compile_metrics(key),
    ]


def _compile_metrics(key: Mapping[str, Any]) -> list[Metric]:
    """Each compile figure with the cache state it ran with, where the run recorded one, and
    the earlier run that measured it, where the run took it from there."""

    def shown(name: str, label: str, fmt) -> Metric:
        value = "—" if key[name] is None else fmt(key[name])
        state = key.get(state_key(name))
        return Metric(label, cache.beside(value, state, key.get("compile_from_run")), _help(name))

    return [
        shown("cold_compile_s", "cold compile", fmt_seconds),
        shown("warm_cache_compile_s", "warm-cache compile", fmt_seconds),
        shown("warm_process_s", "warm-process call", lambda s: fmt_ms(s * 1e3)),
    ]


def _step_metrics(
    result: FusionResult, key: Mapping[str, Any], by: dict[str, ModeResult]
) -> list[Metric]:
    """A training step's: the measured speed-up (no bytes-model prediction), what eager and
    the compiled mode saved for backward."""
    measured, compiled = key["measured_speedup"], key["compiled_mode"]
    found = []
    if not result.timed_before_profiling:  # else checks.metrics quotes it beside the naive A/B
        found.append(
            Metric(
                "measured speed-up",
                "—" if measured is None else f"{measured:.2f}×",
                _help("measured_speedup", f"Here: the step ({step.words(result)})."),
            )
        )
    for name in dict.fromkeys(("eager", compiled)):
        if name in by and by[name].saved is not None:
            found.append(
                Metric(
                    f"{name} saved for backward",
                    step.saved_figure(by[name]),
                    _help(f"saved_bytes.{name}"),
                )
            )
    return found


def _forward_metrics(
    key: Mapping[str, Any], modes, by: dict[str, ModeResult], ws: WorkingSet
) -> list[Metric]:
    """The forward's: speed-up against the bytes model's prediction, the ceiling and its share."""
    best = modes.dropna(subset=["ceiling_pct"])
    best = best.loc[best["ceiling_pct"].idxmax()] if not best.empty else None
    measured = key["measured_speedup"]
    ceiling = key["copy_ceiling_gbps"]
    eager_transfers = by["eager"].transfers_per_element if "eager" in by else EAGER_TRANSFERS
    return [
        Metric(
            "speed-up: measured vs predicted",
            f"{'—' if measured is None else f'{measured:.2f}×'} vs {key['predicted_speedup']:.2f}×",
            _help(
                "measured_speedup",
                "predicted from the bytes model (eager's op list over the ideal bytes), if both "
                "are bound by memory bandwidth"
                if "ideal_bytes" in key
                else f"predicted from the bytes model ({eager_transfers} vs {FUSED_TRANSFERS} "
                "element transfers), if both are bound by memory bandwidth",
            ),
        ),
        Metric(
            "copy ceiling",
            "—" if ceiling is None else f"{ceiling:.1f} GB/s",
            _help("copy_ceiling_gbps"),
        ),
        Metric(
            "best % of ceiling",
            _best_pct(best, ws),
            _help(
                "max_ceiling_pct",
                None if best is None or best["ceiling_pct"] <= OVER else ws.over_ceiling(),
            ),
        ),
    ]


# a title's first words -> its tab (report.TAB_ORDER); the modes table is the timing summary
TAB_OF = (
    ("Kernel", "Kernels"),
    ("Autotune", "Kernels"),
    ("Compile", "Compile"),
    ("Evidence", "Compile"),
    ("Generated code", "Compile"),
    ("Guards", "Compile"),
    ("Steady-state", "Timing"),
    ("Three clocks", "Timing"),
    ("Bandwidth", "Timing"),
    ("Roofline", "Timing"),
    ("Sweep", "Timing"),
    ("Modes", "Timing"),
)


def _tabs(titles: list[str]) -> dict[str, str]:
    return {t: next((tab for start, tab in TAB_OF if t.startswith(start)), "Raw") for t in titles}


def _charts(
    result, fig: FusionFigures, modes, kernels, compile_long, clock_chart, ws: WorkingSet
) -> list[tuple[str, alt.TopLevelMixin]]:
    found: list[tuple[str, alt.TopLevelMixin]] = []
    best, source = fig.ceiling_gbps, fig.ceiling_source
    if not kernels.empty:
        order = [m.mode for m in result.modes]
        title = "Kernels per call (profiler; stacked by kernel, launches at the bar end)"
        if step.stepped(result):  # a bar per mode and pass
            order = [b for m in order for b in (m, *(f"{m} · {p}" for p in ff.PASS_NAMES))]
            title = (
                f"Kernels per call of the step ({step.words(result)}; profiler; a bar per mode "
                "and pass, stacked by kernel, launches at the bar end)"
            )
        found.append((title, fc.kernel_chart(kernels, order)))
    if not compile_long.empty:
        found.append(("Compile latency: first call by phase", fc.compile_chart(compile_long)))
    if modes["achieved_gbps"].notna().any():
        found.append(
            (
                f"Bandwidth: achieved GB/s against the {source} ceiling",
                fc.roofline_chart(modes, best, source, _over_why(modes, ws)),
            )
        )
    points = roofline_frame(result, fig.modes)
    if not points.empty:
        memory = best if best else None
        roofs = roofs_frame(points, memory, result.matmul_tflops)
        found.append(
            (
                "Roofline: achieved TFLOP/s against arithmetic intensity (measured roofs)",
                roofline_chart(points, roofs, result.peak_tflops),
            )
        )
    samples = ff.timing_samples(result)
    if not samples.empty:
        found.append(
            (
                "Steady-state time per call (every sample; ◆ median, bar = IQR)",
                charts.timing_chart(samples, ff.timing_summary(result)),
            )
        )
    if clock_chart is not None:
        found.append(
            ("Three clocks: median per mode and clock (bar = IQR; × = flagged)", clock_chart)
        )
    sweep = ff.sweep_frame(result)
    if not sweep.empty:
        found.append(("Sweep: time per call against size", fc.sweep_time_chart(sweep)))
    if not sweep.empty and not step.stepped(result):  # a step's GB/s is no figure
        found.append(
            (
                "Sweep: achieved GB/s against size",
                fc.sweep_gbps_chart(sweep, best, source),
            )
        )
    return found


def _downloads(run, result, kernels) -> list[tuple[str, str, bytes, str]]:
    found = [run_json_download(run)]
    if not kernels.empty:
        found.append(
            ("Kernels CSV", "kernels.csv", kernels.to_csv(index=False).encode(), "text/csv")
        )
    for m in result.modes:
        if m.trace_file and Path(m.trace_file).is_file():
            data = Path(m.trace_file).read_bytes()
            found.append((f"Trace: {m.mode}", f"{m.mode}-trace.json", data, "application/json"))
    for m in result.modes:
        if m.mode != "cuda-graph-inductor":  # it shares the inductor mode's files
            found += cf.downloads(m.mode, m.compile_evidence)
    return found


def _readable(frame):
    """Without the columns this device never fills (e.g. grid and registers on CPU)."""
    return frame.dropna(axis="columns", how="all")


def build(run: dict[str, Any], result: FusionResult) -> Report:
    resources = fk.resources_frame(result)
    fig = figures(result, resources)  # once: every part below reads its figures from here
    key = fig.summary
    by = {m.mode: m for m in result.modes}
    modes = ff.modes_frame(result, fig.modes)
    kernels = ff.kernels_frame(result)
    compile_long = ff.compile_frame(result)
    checked = [m for m in result.modes if m.tolerance_passed is not None]
    graded = [m for m in result.modes if m.grad_tolerance_passed is not None]
    ok = any(m.ran for m in result.modes) and all(m.tolerance_passed for m in checked)
    ok = ok and all(m.grad_tolerance_passed for m in graded)  # a wrong gradient: never green
    shown = kernels.drop(columns="kernel") if kernels["kernel"].equals(kernels["name"]) else kernels
    shown = shown.drop(columns="bar", errors="ignore")  # the chart's; the table has mode, pass
    kernel_views = rk.views(result, fig, modes, resources)  # occupancy; the long-chain what-if
    tuned = ra.views(result)  # max-autotune's choices per GEMM/template
    kernels_title = "Kernels by pass (forward, backward)" if step.stepped(result) else "Kernels"
    tables = [("Modes", _readable(modes)), (kernels_title, _readable(shown))]
    tables += kernel_views.tables
    tables += tuned.tables
    clock_table, clock_chart = checks.clock_views(fig.clocks)
    if clock_table is not None:
        tables.append(("Three clocks", clock_table))
    if not compile_long.empty:
        tables.append(("Compile latency (own seconds per phase)", ff.compile_table(compile_long)))
    evidence = ff.evidence_table(result, fig.modes)
    if not evidence.empty:
        tables.append(("Evidence: the deployment checklist per compiled mode", evidence))
    traced = [(m.mode, m.compile_evidence) for m in result.modes if m.compile_evidence]
    sources = cf.kernel_sources((m.mode, m.compile_evidence, m.kernels) for m in result.modes)
    if not sources.empty:
        tables.append(("Kernels joined to their source (Inductor provenance)", _readable(sources)))
    if traced:
        tables.append(("Compile ids (structured compile trace)", cf.compile_ids(traced)))
    code = tuple(
        (f"Generated code: {m.mode}", "python", m.generated_code)
        for m in result.modes
        if m.generated_code
    ) + tuple(
        (f"Guards per compile id: {mode}", "text", text)
        for mode, found in traced
        if (text := cf.guard_text(found))
    )
    ws = working_set(result, run.get("env"))
    charts = (
        *_charts(result, fig, modes, kernels, compile_long, clock_chart, ws),
        *kernel_views.charts,
        *tuned.charts,
    )
    judged = verdict(result, fig)
    said = judged.states if judged is not None else frozenset()
    return Report(
        headline=_headline(result, key, by),
        ok=ok,
        metrics=(
            *_metrics(result, key, modes, by, ws),
            *rw.metrics(result, fig),
            *checks.metrics(result, fig),
        ),
        charts=charts,
        tables=tuple(tables),
        tabs=_tabs([t for t, *_ in (*charts, *tables, *code)]),
        notes=(
            *rw.notes(result, fig),
            *correctness.notes(result),
            *step.notes(result),
            *report_notes.notes(run, result, key, modes, compile_long),
            *kernel_views.notes,
            *tuned.notes,
        ),
        downloads=tuple(_downloads(run, result, kernels)),
        code=code,
        warnings=tuple(checks.warnings(result, fig, modes, ws)),
        verdict=judged,
        summary=report_summary.summary(result, fig, modes, [t for t, _ in charts], said, ws),
    )
