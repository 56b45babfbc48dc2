"""The streams run's report: correctness, variants' mismatches, timelines, overlap, host, timing."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import altair as alt
import pandas as pd

from runtime_lab.glossary import registry as glossary
from runtime_lab.report import Metric, Report, in_tab, run_json_download
from runtime_lab.results import stats
from runtime_lab.streams.report import charts as cs
from runtime_lab.streams.report import frames as fs
from runtime_lab.streams.report import summary as report_summary
from runtime_lab.streams.report import workload as report_workload
from runtime_lab.streams.report.csan import csan_frame, csan_notes
from runtime_lab.streams.report.figures import StreamsFigures, figures
from runtime_lab.streams.report.headline import error_label, error_text, headline, verdict
from runtime_lab.streams.report.sync import sync_frame, sync_notes
from runtime_lab.streams.result import StreamsResult
from runtime_lab.view import charts, frames
from runtime_lab.view.fmt import fmt_ms

LANE_NOTE = (
    "Lanes are the lab's own streams: the lab tags each stream's work with "
    "record_function('lab:stream:<lane>') and places a kernel by the range its launch was issued "
    "in (joined by the profiler's correlation id). The profiler's stream ids are CUPTI's, not "
    "torch.cuda.Stream.stream_id; the table below shows the mapping this run found. Records (▼) "
    "and waits (|) sit at the device time they take effect, inferred from stream order: the "
    "profiler does not link a wait to its record."
)
HIDDEN_NOTE = (  # said of any op: the chains run the seed's matmul or the workload's op
    "Two streams + default-stream op between: after each call a chain launches, a small op on "
    "the default stream reads that chain's output (so the default stream waits for it) and each "
    "side stream waits for the default stream before its next call (side.wait_stream(default), "
    "the usual guard for inputs made there); through the default stream every call then waits "
    "for the other chain's last one, and the two chains run one after the other."
)
RACE_NOTE = (
    "No mismatch in {trials} trial(s) of {names} (spin {delay:g} ms ahead of each producer, "
    "shape {shape}). A clean run does not prove the absence of a race: the window depends on "
    "timing, sizes and the GPU's scheduling. Raise delay_us or trials to widen the search."
)


def _help(path: str, detail: str | None = None) -> str | None:
    return glossary.help_text("streams", path, detail)


def _correctness_metrics(
    run: dict[str, Any], result: StreamsResult, fig: StreamsFigures
) -> list[Metric]:
    spec = run["spec"]
    op = result.workload if report_workload.catalog_op(result) else "x @ y"
    # with orderings the figure is the first one's trials; the check before them is its own
    check = (
        f"The check before anything was timed (one event-ordered call against {op} on the "
        f"default stream): {error_text(result.max_abs_diff)}."
        if result.variants
        else None
    )
    found = [
        Metric(
            error_label(),
            error_text(fig.summary["max_abs_diff"]),
            _help("max_abs_diff", check),
        ),
        Metric(
            "tolerance",
            "pass" if result.tolerance_passed else "FAIL",
            f"rtol={result.rtol:g}, atol={result.atol:g} for {spec['dtype']}",
        ),
    ]
    for timing in result.timings:
        s = stats(timing.primary_ms)
        clock = "device" if timing.device_ms else "host wall"
        found.append(
            Metric(
                f"{timing.label}, median",
                fmt_ms(s.median) + (" (noisy)" if s.noisy else ""),
                f"{clock} time per call; IQR {fmt_ms(s.iqr)} over {s.count} calls after "
                f"{timing.warmup} warm-up; first call {fmt_ms(timing.first_call_ms)} "
                "(not in samples)",
            )
        )
    return found


def _variant_metrics(result: StreamsResult, fig: StreamsFigures) -> list[Metric]:
    found = []
    for v, worst in zip(result.variants, fig.worst_abs_diff, strict=True):
        extra = f"; a new tensor got the freed block in {v.reused_block}" if v.reused_block else ""
        found.append(
            Metric(
                f"{v.variant}: wrong results",
                f"{v.mismatches} / {v.trials}",
                _help(
                    f"variants.{v.variant}.mismatches",
                    f"{v.description}. {error_label()} {error_text(worst)}{extra}.",
                ),
            )
        )
    for case, overlap in zip(result.overlap, fig.overlap, strict=True):
        why = f"{HIDDEN_NOTE} " if case.hidden_dependency else ""
        gain = overlap.wall_gain_pct
        found.append(
            Metric(
                f"overlap, {case.label} ({fs.size_text(case)})",
                "—" if case.overlap_pct is None else f"{case.overlap_pct:.0f} %",
                _help(
                    f"overlap_pct.{case.label}",
                    f"{why}wall gain two streams vs one: "
                    f"{math.nan if gain is None else gain:.1f} %",
                ),
            )
        )
    return found


def _host_metrics(result: StreamsResult, fig: StreamsFigures) -> list[Metric]:
    found = []
    for b, s in zip(result.host_blocking, fig.host_us, strict=True):
        verb = "blocks until the queued work ends" if b.blocks else "enqueues and returns"
        found.append(
            Metric(
                f"host: {b.call}",
                f"{s.median:,.1f} µs",
                _help(
                    f"host_us_median.{b.call}",
                    f"Here: it {verb}; {b.queued_ms:g} ms of device work was queued ahead; "
                    f"{s.count} samples",
                ),
            )
        )
    event, harness = fig.event_ms, fig.harness_ms
    if event and harness:
        found.append(
            Metric(
                "Event.elapsed_time vs harness",
                f"{fmt_ms(event.median)} vs {fmt_ms(harness.median)}",
                _help(
                    "event_elapsed_ms_median",
                    "vs the lab harness on the default stream (L2 flush per the spec)",
                ),
            )
        )
    return found


def _charts(result: StreamsResult, fr: fs.StreamsFrames) -> list[tuple[str, alt.TopLevelMixin]]:
    found: list[tuple[str, alt.TopLevelMixin]] = []
    if result.streams_supported:  # on CPU there are no streams: no chain to draw
        steps = cs.steps_chart(fs.steps_frame(result.steps))
        found.append(("Happens-before: what each stream does, in issue order", steps))
    if not fr.variants.empty:
        found.append(
            ("Wrong results out of N trials, per ordering", cs.mismatch_chart(fr.variants))
        )
        rows = fr.variant_timelines
        if not rows.empty:
            order = [v.variant for v in result.variants]
            title = "Per-stream timeline of one profiled trial of each ordering (hover for detail)"
            found.append((title, cs.timeline_chart(rows, order)))
        found.append(("Error of every trial", cs.diffs_chart(fs.trial_diffs_frame(result))))
    if result.host_blocking:
        found.append(
            (
                "Host vs device: what the host waits for",
                cs.blocking_chart(fr.blocking),
            )
        )
        rows = fs.timeline_rows("host-blocking round", result.blocking_timeline)
        if not rows.empty:
            found.append(
                (
                    "Host vs device on one time axis",
                    cs.timeline_chart(rows, ["host-blocking round"]),
                )
            )
    if result.overlap:
        found.append(("Overlap: two streams vs one", cs.overlap_chart(fr.overlap)))
        rows = fr.overlap_timelines
        if not rows.empty:
            sections = list(dict.fromkeys(rows["section"]))
            found.append(("Overlap timelines", cs.timeline_chart(rows, sections)))
    if not fr.samples.empty:
        found.append(
            (
                "Time per call (every sample; ◆ median, bar = IQR)",
                charts.timing_chart(fr.samples, fr.summary),
            )
        )
    event = fs.event_timings(result)
    if event:
        found.append(
            (
                "Event timing by hand vs the lab harness (same matmul)",
                charts.timing_chart(frames.timing_samples(event), frames.timing_summary(event)),
            )
        )
    return found


def _notes(run: dict[str, Any], result: StreamsResult) -> list[str]:
    notes = [result.note]
    if not result.streams_supported:
        return notes
    clean = [v for v in result.variants if not v.expected_correct and v.mismatches == 0]
    if clean:
        names = ", ".join(v.variant for v in clean)
        shape = "x".join(str(d) for d in run["spec"]["shape"])
        notes.append(
            RACE_NOTE.format(
                trials=clean[0].trials, names=names, delay=result.delay_ms, shape=shape
            )
        )
    wrong = [v for v in result.variants if v.expected_correct and v.mismatches]
    if wrong:
        notes.append(
            "An ordered variant gave wrong results: "
            + ", ".join(v.variant for v in wrong)
            + ". That is a bug worth reporting."
        )
    if result.variants:
        notes.append(LANE_NOTE)
    if any(c.hidden_dependency for c in result.overlap):
        notes.append(HIDDEN_NOTE)
    return notes


def _tables(fr: fs.StreamsFrames) -> list[tuple[str, pd.DataFrame]]:
    """The frames as tables: the error column under the error figure's name, and no column
    that is empty in every row (an error column where nothing failed)."""
    orderings = fr.variants.rename(columns={"worst_abs_diff": error_label()})
    found = []
    for title, frame in (
        ("Orderings", orderings),
        ("Lane mapping: lab stream → profiler stream id", fr.lane_map),
        ("Overlap", fr.overlap),
        ("Host calls", fr.blocking),
        ("Timing summary", fr.summary),
    ):
        if not frame.empty:
            found.append((title, frame.dropna(axis="columns", how="all")))
    return found


def _downloads(
    run: dict[str, Any], result: StreamsResult, fr: fs.StreamsFrames
) -> list[tuple[str, str, bytes, str]]:
    found = [run_json_download(run)]
    rows = pd.concat([fr.variant_timelines, fr.overlap_timelines], ignore_index=True)
    if not rows.empty:
        found.append(
            ("Timeline CSV", "streams-timeline.csv", rows.to_csv(index=False).encode(), "text/csv")
        )
    if result.trace_file and Path(result.trace_file).is_file():
        data = Path(result.trace_file).read_bytes()
        found.append(("Chrome trace (Perfetto)", "streams-trace.json", data, "application/json"))
    if not fr.samples.empty:
        found.append(
            ("Samples CSV", "samples.csv", fr.samples.to_csv(index=False).encode(), "text/csv")
        )
    return found


def build(run: dict[str, Any], result: StreamsResult) -> Report:
    fig = figures(result)  # once: the metrics and the frames read their figures from here
    fr = fs.report_frames(result, fig)
    tables = _tables(fr)
    csan = csan_frame(result)
    if not csan.empty:  # right after the orderings: the two verdicts side by side
        tables.insert(1, ("CUDA sanitizer (CSAN) verdict per ordering vs the lab's trials", csan))
    syncs = sync_frame(result)
    if not syncs.empty:
        tables.append(("The profiler's sync records vs the lab's inferred waits and syncs", syncs))
    wrong_ordered = any(v.expected_correct and v.mismatches for v in result.variants)
    report = Report(
        headline=headline(result, fig),
        ok=result.tolerance_passed and not wrong_ordered,
        verdict=verdict(result),
        metrics=tuple(
            _correctness_metrics(run, result, fig)
            + _variant_metrics(result, fig)
            + _host_metrics(result, fig)
        ),
        charts=(charts := tuple(_charts(result, fr))),
        tabs=in_tab("Timing", charts),
        tables=tuple(tables),
        notes=tuple(
            _notes(run, result)
            + report_workload.notes(run, result)
            + csan_notes(result)
            + sync_notes(result)
        ),
        downloads=tuple(_downloads(run, result, fr)),
    )
    return replace(report, summary=report_summary.summary(report, fig.summary))
