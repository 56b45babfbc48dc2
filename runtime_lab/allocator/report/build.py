"""The allocator run's report: headline, metrics, charts with their reasons, tables, downloads."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from runtime_lab.allocator.report import ab
from runtime_lab.allocator.report import charts as ca
from runtime_lab.allocator.report import frames as fa
from runtime_lab.allocator.report import summary as report_summary
from runtime_lab.allocator.report import workload as rw
from runtime_lab.allocator.report.figures import key_figures
from runtime_lab.allocator.report.headline import headline
from runtime_lab.allocator.result import AllocatorResult
from runtime_lab.glossary import registry as glossary
from runtime_lab.report import Metric, Report, in_tab, run_json_download
from runtime_lab.view.fmt import fmt_bytes, fmt_ms

WHY_RESERVED = [
    "After del the blocks go back to PyTorch's cache, not to the driver: allocated drops, "
    "reserved stays,",
    "so the next step of a similar size is served without cudaMalloc. reserved > allocated is "
    "a cache, not a leak (nvidia-smi shows reserved plus the CUDA context).",
]
WHY_EMPTY_CACHE = [
    "empty_cache() hands whole unused segments back to the driver; it frees no tensor (allocated "
    "is unchanged), keeps segments with any live block, and does not touch CUDA-graph pools.",
    "Every step it costs a device sync plus a cudaMalloc for each block the next step needs, "
    "where the cache would have answered at once.",
]
WHY_PEAK = [
    "Eager materialises x + y, silu(·), x − y and the product; the compiled graph is one fused "
    "kernel that writes only the output.",
    "Peaks are max_memory_allocated above the live inputs, reset before each measured call.",
]
WHY_PEAKS_CHART = [
    "Per scenario: the most allocated (dark) and reserved (light) at any moment of its snapshot "
    "trace, inputs included. Red: one call at one shape, above its inputs.",
    *WHY_PEAK,
]
WHY_TIMELINE = [
    "Reserved (area) is cudaMalloc'd segments; allocated (line) is blocks handed to tensors, "
    "integrated from the snapshot's alloc / free_completed and segment_alloc / segment_free.",
    "Pending free: freed by Python but waiting for another stream (record_stream). Host RSS "
    "includes child processes (Inductor compiles in workers).",
    "Dashed rules: memory_stats marks (hover ▼ for their numbers). Scroll or drag on a panel to "
    "zoom its time axis; double-click resets.",
]
SCENARIO_NOTES = {
    "sequence": "reserved grows to the largest step and stays after each del; the final "
    "empty_cache() returns it",
    "compiled": "eager at one shape, then torch.compile (most of the time: Inductor compiling in "
    "child processes, see host RSS), then the fused call",
    "empty-cache": "the sequence twice: never (later steps reuse the cache), then empty_cache() "
    "after every step (reserved falls back each time)",
    "side-stream": "a side-stream tensor freed without, then with record_stream: pending free is "
    "its block waiting for the side stream",
    "cudagraphs": "reduce-overhead's private pool stays reserved after del + empty_cache, until "
    "torch.compiler.reset()",
}
WHY_CPU_TIMELINE = [
    "The worker's RSS with its child processes (Inductor compiles in workers), sampled every "
    "20 ms by psutil; allocated / reserved over time need CUDA.",
    WHY_TIMELINE[-1],
]
WHY_CPU_STEPS = [
    "Host RSS of the worker (with children) at each mark; allocated / reserved / peak need CUDA.",
    "The CPU allocator returns large blocks to the OS at free, so RSS falls after del.",
]
STEP_MS_NOTE = (
    "step_ms in the Steps table was taken while memory history recorded a Python stack for every "
    "allocation, which slows each step: compare steps with each other, not with timings taken "
    "without it."
)
CPU_NOTE = (
    "On CPU there is no caching allocator to ask: allocated, reserved, peak, snapshots, "
    "empty_cache, side streams and CUDA graphs need CUDA. What runs here is the host side: the "
    "worker's RSS (with its compile workers) over the run and per step."
)


def _help(path: str, detail: str | None = None) -> str | None:
    return glossary.help_text("allocator", path, detail)


def _metrics(result: AllocatorResult, figures: dict[str, Any]) -> list[Metric]:
    seq = "sequence"
    found = []
    if figures["peak_bytes"].get(seq) is not None:
        found += [
            Metric(
                "sequence: peak", fmt_bytes(figures["peak_bytes"][seq]), _help(f"peak_bytes.{seq}")
            ),
            Metric(
                "after last del: allocated · reserved",
                f"{fmt_bytes(figures['allocated_bytes'][seq])} · "
                f"{fmt_bytes(figures['reserved_bytes'][seq])}",
                _help(f"reserved_bytes.{seq}", " ".join(WHY_RESERVED)),
            ),
            Metric(
                "reserved after empty_cache",
                fmt_bytes(figures["reserved_after_empty_cache_bytes"][seq]),
                _help(f"reserved_after_empty_cache_bytes.{seq}", " ".join(WHY_EMPTY_CACHE)),
            ),
        ]
    c = figures["compiled"]
    if c and c["eager_peak_bytes"] is not None:
        found.append(
            Metric(
                "peak above inputs: eager → compiled",
                f"{fmt_bytes(c['eager_peak_bytes'])} → {fmt_bytes(c['compiled_peak_bytes'])}",
                _help(
                    "compiled.delta_bytes",
                    f"{'x'.join(map(str, c['shape']))}: the fused graph saves "
                    f"{fmt_bytes(c['delta_bytes'])}. " + " ".join(WHY_PEAK),
                ),
            )
        )
    cost, e = figures["empty_cache_cost_ms"], result.empty_cache
    if cost is not None:
        found.append(
            Metric(
                "empty_cache every step costs",
                f"{fmt_ms(cost)} per step",
                _help(
                    "empty_cache_cost_ms",
                    f"median round time with empty_cache() after every step minus never, over "
                    f"{e.rounds} rounds of {e.steps} steps; the call "
                    f"alone: {fmt_ms(figures['empty_cache_call_ms'] or 0.0)} (median)"
                    + ("; timed before any memory history" if e.timed_before_history else ""),
                ),
            )
        )
    s = result.side_stream
    if s is not None:
        found.append(
            Metric(
                "block reused while the side stream ran",
                f"{'yes' if s.reused_without_record else 'no'} → "
                f"{'yes' if s.reused_with_record else 'no'} (without → with record_stream)",
                _help(
                    "side_stream.reused_without_record_stream",
                    "record_stream delays reuse until the side stream's work is done "
                    f"(free_requested → free_completed {(s.free_lag_us or 0) / 1e3:.1f} ms)",
                ),
            )
        )
    if result.graphs is not None:
        g = result.graphs
        found.append(
            Metric(
                "CUDA-graph private pool",
                fmt_bytes(g.private_pool_bytes),
                _help(
                    "cudagraphs_private_pool_bytes",
                    f"reduce-overhead's pool: reserved {fmt_bytes(g.reserved_before_bytes)} "
                    f"before, {fmt_bytes(g.reserved_replaying_bytes)} replaying, "
                    f"{fmt_bytes(g.reserved_after_del_bytes)} after del + empty_cache (the pool "
                    f"stays), {fmt_bytes(g.reserved_after_reset_bytes)} after "
                    "torch.compiler.reset()",
                ),
            )
        )
    if result.num_alloc_retries is not None:
        found.append(
            Metric(
                "alloc retries · OOMs",
                f"{result.num_alloc_retries} · {result.num_ooms}",
                _help(
                    "num_alloc_retries",
                    "a retry is slow; an OOM failed even after the allocator freed its cache",
                ),
            )
        )
    return found


def _host_metrics(figures: dict[str, Any]) -> list[Metric]:
    """A CPU run's step by step host RSS (the largest first), then the run's RSS peak."""
    steps = figures.get("host_rss_step_peak_bytes") or {}
    found = [
        Metric(
            glossary.label("allocator", f"host_rss_step_peak_bytes.{label}"),
            fmt_bytes(held),
            _help(f"host_rss_step_peak_bytes.{label}"),
        )
        for label, held in sorted(steps.items(), key=lambda item: -item[1])
    ]
    peak = fmt_bytes(figures["host_rss_peak_bytes"])
    return [*found, Metric("host RSS peak", peak, _help("host_rss_peak_bytes"))]


def _charts(result: AllocatorResult, steps: pd.DataFrame) -> list[tuple[str, Any]]:
    long = fa.steps_long(steps)
    cpu = result.device == "cpu"
    why = (WHY_CPU_TIMELINE, {}) if cpu else (WHY_TIMELINE, SCENARIO_NOTES | rw.notes_for(result))
    found = [
        (
            "Over time",
            ca.timeline_chart(fa.trace_frame(result), fa.rss_frame(result), steps, *why),
        )
    ]
    for scenario in ("sequence", "empty-cache"):
        if (long["scenario"] == scenario).any():
            why = WHY_RESERVED if scenario == "sequence" else WHY_EMPTY_CACHE
            found.append((f"Per step: {scenario}", ca.steps_chart(long, scenario, why)))
    if long.empty and (steps["scenario"] == "sequence").any():  # CPU: the host side per step
        rss = fa.rss_steps_long(steps)
        found.append(("Per step: sequence", ca.steps_chart(rss, "sequence", WHY_CPU_STEPS)))
    peaks = fa.peaks_frame(result)
    if not peaks.empty:
        found.append(("Peaks", ca.peaks_chart(peaks, rw.peaks_why(result, WHY_PEAKS_CHART))))
    rounds = fa.empty_cache_frame(result)
    if not rounds.empty:
        found.append(("Cost of empty_cache", ca.empty_cache_chart(rounds, WHY_EMPTY_CACHE[1:])))
    return found


def _tables(result: AllocatorResult, steps: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    # a column empty in every row is left out: memory_stats' on a CPU (no caching allocator),
    # saved_bytes where no training step held activations at its mark
    shown = steps.drop(columns=["x"]).dropna(axis="columns", how="all")
    title = "Steps (bytes; memory_stats, peaks reset per step)"
    if result.device == "cpu":
        title = "Steps (bytes; host RSS at each mark: memory_stats need CUDA)"
    tables = [(title, shown)]
    snaps = fa.snapshots_frame(result)
    if not snaps.empty:
        tables.append(("Segments at the end of each scenario (from its snapshot)", snaps))
        tables.append(("Bytes per stream", fa.streams_frame(result)))
    return tables


def _downloads(
    run, result: AllocatorResult, steps: pd.DataFrame
) -> list[tuple[str, str, bytes, str]]:
    curves = fa.curves_csv_frame(result).to_csv(index=False).encode()
    found = [
        run_json_download(run),
        ("Curves CSV", "allocator-curves.csv", curves, "text/csv"),
        ("Steps CSV", "allocator-steps.csv", steps.to_csv(index=False).encode(), "text/csv"),
    ]
    for s in result.snapshots:  # a history entry may outlive its file: offer what is there
        # the segments one first: the end one's segment view is empty after empty_cache()
        for file, suffix, label in (
            (s.segments_file, "-before-empty-cache", "segments before empty_cache"),
            (s.file, "", "end, segments returned" if s.segments_file else "end"),
        ):
            if file and Path(file).is_file():
                name, data = f"snapshot-{s.scenario}{suffix}.pickle", Path(file).read_bytes()
                kind = "application/octet-stream"
                found.append((f"Snapshot {s.scenario}: {label}", name, data, kind))
    return found


def _warnings(result: AllocatorResult) -> list[str]:
    found = [f"{e.scenario} failed: {e.error}" for e in result.errors]
    full = [s.scenario for s in result.snapshots if s.entries >= s.max_entries]
    if full:
        found.append(
            f"memory history hit max_entries in {', '.join(full)}: the oldest entries were dropped "
            "(the curves start later; raise max_entries to keep them)"
        )
    if result.final_allocated_bytes != result.baseline_allocated_bytes:
        found.append(
            f"the worker holds {fmt_bytes(result.final_allocated_bytes)} after the job, "
            f"{fmt_bytes(result.baseline_allocated_bytes)} before it"
        )
    return found


def _notes(result: AllocatorResult) -> list[str]:
    notes = [CPU_NOTE] if result.device == "cpu" else []
    notes += [f"Not run: {s}" for s in result.skipped]
    if result.step_ms_under_history:
        notes.append(STEP_MS_NOTE)
    if result.trace_points > len(result.trace):
        notes.append(
            f"Snapshot curves: {result.trace_points:,} trace points, drawn as {len(result.trace):,} "
            "(per-bucket highs and lows kept, so peaks survive); the full trace is in the pickles."
        )
    if result.snapshots:
        notes.append(
            "Each snapshot pickle loads in PyTorch's memory viewer (pytorch.org/memory_viz) and "
            "with `python -m torch.cuda._memory_viz stats|trace|segments FILE`. Those taken "
            "before a scenario's final empty_cache() hold its segments (what the segment view and "
            "`stats` show); the end ones hold the whole trace, by when empty_cache() has returned "
            "the segments."
        )
    return notes


def build(run: dict[str, Any], result: AllocatorResult) -> Report:
    figures = key_figures(result)  # once: the headline and the metrics read them
    steps = fa.steps_frame(result)
    ab_charts, ab_tables, ab_notes = ab.parts(result)
    wl_charts, wl_tables, wl_notes = rw.parts(result)  # all empty for runs before the catalog
    charts = tuple(_charts(result, steps) + wl_charts + ab_charts)
    report = Report(
        headline=headline(result, figures),
        ok=not result.errors,
        metrics=tuple(rw.metrics(result) + _metrics(result, figures) + _host_metrics(figures)),
        charts=charts,
        tabs=in_tab("Memory", charts),
        tables=tuple(_tables(result, steps) + wl_tables + ab_tables),
        notes=tuple(wl_notes + _notes(result) + ab_notes),
        downloads=tuple(_downloads(run, result, steps)),
        warnings=tuple(_warnings(result)),
    )
    return replace(report, summary=report_summary.summary(report, figures))
