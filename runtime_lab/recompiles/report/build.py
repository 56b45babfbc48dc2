"""The recompiles run's report: headline, per-mode metrics, charts, tables, notes, code, downloads."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from runtime_lab.compiler import frames as cf
from runtime_lab.glossary import registry as glossary
from runtime_lab.recompiles.report import charts as cr
from runtime_lab.recompiles.report import evidence as ev
from runtime_lab.recompiles.report import frames as fr
from runtime_lab.recompiles.report import summary as report_summary
from runtime_lab.recompiles.report import whatif as wi
from runtime_lab.recompiles.report import workload as rw
from runtime_lab.recompiles.report.figures import RecompilesFigures, figures, mode_label
from runtime_lab.recompiles.result import CallRecord, ModeRun, RecompilesResult
from runtime_lab.report import Metric, Report, in_tab, run_json_download

CPU_NOTE = (
    "On CPU the steady-state times are host wall time of synchronous calls; Inductor compiles C++ "
    "with the system compiler, so its compiles take seconds where Dynamo alone takes ms."
)
EAGER_NOTE = (
    "backend=eager: Dynamo captures and guards exactly as with Inductor (same graphs, recompiles "
    "and reasons) but generates no code, so compile seconds here are capture time only."
)


def _seconds(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.2f} s" if value >= 1 else f"{value * 1e3:.3g} ms"


def _graphs_word(n: int) -> str:
    return f"{n} graph" + ("" if n == 1 else "s")


def _headline(result: RecompilesResult, order: tuple[str, ...]) -> str:
    by = {m.mode: m for m in result.modes}
    device = "CPU" if result.device == "cpu" else result.device
    parts = [
        f"{mode_label(result, name, short=True)} "
        f"{'failed' if by[name].error else _graphs_word(by[name].unique_graphs)}"
        for name in order
    ]
    head = f"recompiles {device} {result.backend}, {len(result.sequence)} calls"
    head = rw.head(result, device) if rw.workload_run(result) else head
    if result.mark_dynamic:  # every mode ran with the option's marks: named once, here
        head += f", mark_dynamic {result.mark_dynamic} in every mode"
    stance = f" · stance {result.stance} after call 1" if result.stance != "default" else ""
    return f"{head}: {' · '.join(parts)}{stance}"


def _metric(mode: ModeRun, first: CallRecord | None, label: str) -> Metric:
    """label: the mode as it ran (figures.mode_label)."""
    if mode.error:
        return Metric(f"{label}: graphs", "failed", mode.error[:300])
    value = str(mode.unique_graphs)
    if mode.limit_hit:
        value += " · limit hit"
    help_text = (
        f"{mode.detail}. {mode.recompiles} recompile(s), {mode.cache_hits} cache hit(s), "
        f"{_seconds(mode.compile_s)} compiling; {mode.compiles} of recompile_limit "
        f"{mode.recompile_limit} used."
    )
    if first:
        help_text += f" First recompile at call {first.index}: {first.reason}"
    return Metric(
        f"{label}: graphs",
        value,
        glossary.help_text("recompiles", f"unique_graphs.{mode.mode}", help_text),
    )


def _metrics(result: RecompilesResult, fig: RecompilesFigures) -> list[Metric]:
    by = {m.mode: m for m in result.modes}
    found = [
        _metric(by[name], fig.first_recompile.get(name), mode_label(result, name, short=True))
        for name in fig.order
    ]
    g = result.graph_break
    if g is not None:
        value = "failed" if g.error else f"{g.unique_graphs} · {g.graph_breaks}"
        help_text = g.error or f"break reasons: {'; '.join(g.reasons) or 'none'}"
        help_text = glossary.help_text("recompiles", "graph_breaks.graph_breaks", help_text)
        found.append(Metric(f"{g.variant} variant: graphs · breaks", value, help_text))
        found.append(
            Metric(
                "fullgraph=True on it",
                g.fullgraph_error_type or "no error",
                (g.fullgraph_error or "")[:400] or None,
            )
        )
    found += wi.metrics(result, fig) + rw.metrics(result)
    found.append(
        Metric(
            "recompile_limit",
            str(result.recompile_limit),
            "torch._dynamo.config.recompile_limit for this run: compiles one function may have",
        )
    )
    return found


def _mode_notes(result: RecompilesResult, fig: RecompilesFigures) -> list[str]:
    notes = []
    for m in result.modes:
        if m.error:
            notes.append(f"{m.mode} failed: {m.error}")
            continue
        first = fig.first_recompile.get(m.mode)
        if first:
            notes.append(f"{m.mode}: first recompile at call {first.index}, because {first.reason}")
        if m.mode in wi.MARKING and not rw.workload_run(result):  # rw names the dims instead
            marked = {f"index {d}" for d in result.dims}
            other = [
                c
                for c in m.calls
                if c.reason
                and "size mismatch" in c.reason
                and not any(i in c.reason for i in marked)
            ]
            if other:
                notes.append(
                    f"{m.mode} marked dims {', '.join(map(str, result.dims))} only; call "
                    f"{other[0].index} changed another one, so Dynamo recompiled ({other[0].reason})."
                )
        if m.timing_compiles:
            notes.append(
                f"{m.mode}: steady-state timing compiled {m.timing_compiles} more frame(s); the "
                "counts above are from the sequence alone."
            )
    ones = sorted(
        {s for s in result.sequence if any(part == "1" for part in s.split(":")[0].split("x"))}
    )
    if ones:
        notes.append(
            f"Shapes with a dimension of size 1 ({', '.join(ones)}): Dynamo specializes sizes 0 "
            "and 1 even when a dimension is dynamic (unless it is unbacked: mark_unbacked), so "
            "they get a graph of their own."
        )
    return notes


def _bucket_note(result: RecompilesResult, summary) -> str | None:
    """summary: frames.bucket_summary of the run."""
    if len(summary) != 2:
        return None
    static, bucketed = summary.iloc[0], summary.iloc[1]
    how = "powers of two" if result.bucket == "pow2" else f"multiples of {result.bucket_multiple}"
    if not bucketed["padding_mb"]:
        return f"Bucketing to {how} changed no shape here: every shape is already a bucket."
    saved = int(static["graphs"] - bucketed["graphs"])
    graphs = f"{int(bucketed['graphs'])} graphs instead of {int(static['graphs'])}"
    text = (
        f"Bucketing to {how}: {graphs} ({saved} fewer), "
        if saved > 0
        else (f"Bucketing to {how} saved no graphs ({graphs}), ")
    )
    text += (
        f"compile {_seconds(bucketed['compile_s'])} instead of {_seconds(static['compile_s'])}; "
        f"padding moves {bucketed['padding_mb']:.3g} MB more over the sequence"
    )
    if static["steady_total_ms"] and bucketed["steady_total_ms"]:
        delta = bucketed["steady_total_ms"] - static["steady_total_ms"]
        text += f" and changes one pass's steady-state time by {delta:+.3g} ms"
    return text + " (the pad copy itself excluded: a batcher would allocate the padded batch)."


def _notes(result: RecompilesResult, fig: RecompilesFigures, buckets) -> list[str]:
    notes = rw.notes(result, fig) + _mode_notes(result, fig) + wi.notes(result, fig)
    bucket = _bucket_note(result, buckets)
    if bucket:
        notes.append(bucket)
    g = result.graph_break
    if g is not None and not g.error:
        text = f"Graph-break variant ({g.variant}): {_graphs_word(g.unique_graphs)}, "
        text += f"{g.graph_breaks} break(s): {'; '.join(g.reasons) or 'none'}."
        if g.fullgraph_error_type:
            first = (g.fullgraph_error or "").strip().splitlines()[:1]
            text += f" With fullgraph=True: {g.fullgraph_error_type}: {first[0] if first else ''}"
        notes.append(text)
    elif g is not None:
        notes.append(f"Graph-break variant failed: {g.error}")
    if result.backend == "eager":
        notes.append(EAGER_NOTE)
    elif not result.fresh_caches:
        notes.append(_cache_note(result))
    if result.device == "cpu":
        notes.append(CPU_NOTE)
    return notes + list(result.notes)


def _cache_note(result: RecompilesResult) -> str:
    hits = {m.mode: sum(c.fx_cache == "hit" for c in m.calls) for m in result.modes}
    text = (
        "Compile seconds depend on the Inductor cache: this run used the persistent cache in the "
        "data directory; fresh_caches gives each mode empty caches (cold compiles). A throwaway "
        "compile ran first, so no mode pays the process's one-time compiler start-up."
    )
    hit = ", ".join(f"{mode} {n}" for mode, n in hits.items() if n)
    if hit:
        text += (
            f" FX graph cache hits ({hit}): those compiles reused a graph already compiled by an "
            "earlier mode or run (bucketing's static graphs are dynamic=False's), so compare "
            "their graph counts, not their seconds."
        )
    return text


def _warnings(result: RecompilesResult) -> list[str]:
    found = [f"{m.mode}: {m.limit_state}" for m in result.modes if m.limit_hit]
    for m in result.modes:
        other = [
            c
            for c in m.calls
            if c.event == "failed" and not m.limit_hit and not wi.stance_failure(c)
        ]
        if other:
            found.append(
                f"{m.mode}: {len(other)} call(s) failed, first at call {other[0].index}: {other[0].error}"
            )
    found += [f"{m.mode} did not run: {m.error}" for m in result.modes if m.error]
    return found


def _readable_calls(calls):
    keep = ["mode", "call", "shape", *(["changed"] if "changed" in calls else []), "run_shape"]
    keep += ["dtype", "event", "compile_s", "call_s"]
    keep += ["compile_id", "reason", "guard_count", "fx_cache", "steady_ms", "eager_ms", "error"]
    keep += ["stance", "cudagraph", "cudagraph_reason"]
    keep += ["tlparse_folder"] if "tlparse_folder" in calls else []
    frame = calls[keep]
    if (frame["shape"] == frame["run_shape"]).all():
        frame = frame.drop(columns="run_shape")
    return frame.dropna(axis="columns", how="all")


def build(run: dict[str, Any], result: RecompilesResult) -> Report:
    fig = figures(result)  # once: the metrics, notes and frames read their figures from here
    order = list(fig.order)
    calls = ev.with_folders(fr.calls_frame(result), result)
    totals = fr.totals_frame(result, fig)
    limits = fr.limit_frame(result, fig)
    buckets = fr.bucket_summary(totals)
    graphs = fr.cudagraph_frame(result)
    reasons = fr.reasons_frame(result)
    charts = []
    if not calls.empty:
        charts.append(
            (
                "Compile time per call, by mode (bar: compile seconds; ▼ recompile, ● cache hit; "
                "hover for the guard failure)",
                cr.timeline_chart(calls, order),
            )
        )
    if not limits.empty:
        charts.append(
            ("Recompile limit: compiles of the function per mode", cr.limit_chart(limits))
        )
    if calls["steady_ms"].notna().any():
        charts.append(
            (
                "Steady state once compiled: median ms per call (dashed: plain eager)",
                cr.steady_chart(calls, order),
            )
        )
    charts += wi.charts(graphs)
    tables = [("Per mode totals", totals.dropna(axis="columns", how="all"))]
    tables.append((f"Calls{rw.of(result)}", _readable_calls(calls)))
    if not reasons.empty:
        tables.append(("Recompile reasons: every cached frame's failing guard", reasons))
    bucket = fr.bucket_frame(result)
    if not bucket.empty:
        tables.append(("Bucketing what-if: static shapes vs bucketed", buckets))
        tables.append(("Bucketing per call", bucket.dropna(axis="columns", how="all")))
    if result.graph_break is not None:
        tables.append(("Graph-break variant", fr.graph_break_frame(result)))
    tables += wi.tables(graphs) + ev.evidence_tables(result)
    code = ev.guard_code(result, order)
    g = result.graph_break
    if g is not None:
        code.append((f"Graph-break variant: {g.variant}", "python", g.source))
        if g.fullgraph_error:
            code.append(
                (f"fullgraph=True error: {g.fullgraph_error_type}", "text", g.fullgraph_error)
            )
    downloads = [
        run_json_download(run),
        ("Calls CSV", "recompile-calls.csv", calls.to_csv(index=False).encode(), "text/csv"),
        ("Totals CSV", "recompile-totals.csv", totals.to_csv(index=False).encode(), "text/csv"),
    ]
    if not reasons.empty:
        data = reasons.to_csv(index=False).encode()
        downloads.append(("Reasons CSV", "recompile-reasons.csv", data, "text/csv"))
    for m in result.modes:
        downloads += cf.downloads(m.mode, m.compile_evidence)
    if result.graph_break is not None:
        downloads += cf.downloads("graph-break", result.graph_break.compile_evidence)
    report = Report(
        headline=_headline(result, fig.order),
        ok=bool(result.modes) and not any(m.error for m in result.modes),
        metrics=tuple(_metrics(result, fig)),
        charts=tuple(charts),
        tabs=in_tab("Compile", charts),
        tables=tuple(tables),
        notes=tuple(_notes(result, fig, buckets)),
        downloads=tuple(downloads),
        code=tuple(code),
        warnings=tuple(_warnings(result)),
    )
    return replace(report, summary=report_summary.summary(report, fig.summary))
