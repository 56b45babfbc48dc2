"""A run's report on the page: in tabs (Summary, Kernels, Timing, Compile, Memory, Raw)."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st
from streamlit.errors import StreamlitAPIException

import runtime_lab.ui.links as links
from runtime_lab import record, registry
from runtime_lab.compare import comparison
from runtime_lab.compare.moved import comparable
from runtime_lab.record import Run
from runtime_lab.registry import EXPERIMENTS
from runtime_lab.report import TAB_ORDER, pending, tab_of
from runtime_lab.spec import RunSpec, SpecError
from runtime_lab.view import export as chart_export
from runtime_lab.view import frames, stages
from runtime_lab.view.code import code_doubt, code_line, workload_code
from runtime_lab.view.fmt import label_fits, metric_parts
from runtime_lab.view.origin import imported_from
from runtime_lab.view.text import markdown as md

__all__ = ["CHART_FILES", "CHART_LABELS", "draw"]

# (label, extension, renderer, MIME type) of the files offered under every chart
CHART_FILES = (
    ("PNG", "png", chart_export.to_png, "image/png"),
    ("SVG", "svg", chart_export.to_svg, "image/svg+xml"),
    ("CSV", "csv", chart_export.to_csv, "text/csv"),
)
CHART_LABELS = tuple(f[0] for f in CHART_FILES)


def _run_links(run: Run) -> None:
    """A recorded run's own address and a link that opens its page with its spec filled in."""
    experiment = run.spec.get("experiment")
    info = EXPERIMENTS.get(experiment)
    try:
        query = links.to_query(RunSpec.from_dict(run.spec))
    except (SpecError, TypeError):
        return  # a spec this version no longer accepts: nothing to fill a form with
    left, right, _ = st.columns([1, 1, 3])
    try:
        if info and not info.hidden:
            left.page_link(
                f"app_pages/{experiment}.py",
                label="Run this spec again",
                icon=":material/replay:",
                query_params=query,
            )
        if run.id:
            right.page_link(
                "app_pages/history.py",
                label=f"Link to run #{run.id}",
                icon=":material/link:",
                query_params={"run": str(run.id)},
            )
    except StreamlitAPIException:
        pass  # drawn outside the app's navigation (a bare script): no pages to link to


def draw(run: Run | Mapping[str, Any], partial: bool = False, before: Run | None = None) -> None:
    """Draw a run's report: the headline above, in a box green only when its verdict holds, then
    tabs: Summary (one screen: the key figures in pairs, the chart that shows the headline's
    claim, a few lines, the rest in a collapsed Notes; a report without a Summary: every
    warning, metric and note), the experiment's own (Kernels, Timing, Compile, Memory: as
    its report places each chart, table and code), Raw (every metric, other tables, provenance,
    downloads).
    A run document (plain data) is read as a Run; `partial`: a job's figures so far, those still
    to come marked pending (report.pending); `before`: the earlier run this one follows (the
    session's last of its experiment, or History's earlier comparable run), whose differences
    and headline figure's move go in one line under the headline. Every word of the report may be a stored
    string (a bundle's run says anything), so each is escaped (md): shown, never acted on."""
    run = Run.of(run)
    rep = registry.build_report(run)
    if partial:
        rep = pending(rep)
    _headline(run, rep)
    if before is not None and not partial:
        _moved_line(before, run)
    _origin_line(run)
    if line := code_line(run):
        st.caption(md(line))
    _run_links(run)
    items: dict[str, list] = {name: [] for name in TAB_ORDER}
    summary = rep.summary
    for number, (title, chart) in enumerate(rep.charts):
        if summary is not None and title == summary.chart:  # drawn in Summary, once
            continue
        items[tab_of(rep, title, "chart")].append(("chart", title, chart, number))
    for title, table in rep.tables:
        items[tab_of(rep, title, "table")].append(("table", title, table, None))
    for title, language, source in rep.code:
        items[tab_of(rep, title, "code")].append(("code", title, (language, source), None))
    names = ["Summary", *[n for n in TAB_ORDER[1:-1] if items[n]], "Raw"]
    for name, tab in zip(names, st.tabs(names), strict=True):
        with tab:
            if name == "Summary" and rep.summary is not None:
                _one_screen(run, rep, rep.summary)
            elif name == "Summary":
                _summary(rep)
            for item in items[name]:
                _item(run, *item)
            if name == "Raw":
                if rep.summary is not None and rep.metrics:
                    st.markdown("**Every figure of the report**")
                    _metrics(rep.metrics)
                _raw(run, rep)


def _headline(run: Run, rep) -> None:
    """The headline in a box that is green only when the run passed and the figures behind it
    hold (rep.verdict); else amber with the one line that says what to doubt, or red."""
    saved = f" · run #{run.id}" if run.id else ""
    text = md(rep.headline) + saved
    verdict = rep.verdict
    if run.status != "done" or not rep.ok:
        st.error(text + (f"  \n{md(verdict.doubt)}" if verdict and verdict.doubt else ""))
    elif verdict is not None and not verdict.ok:
        st.warning(f"{text}  \n{md(verdict.doubt or 'the figures behind it do not hold')}")
    else:
        st.success(text)


def _since(before: Run, run: Run):
    """comparison.since, once per session for a pair of stored runs (they do not change): every
    rerun of the page (any widget) would otherwise rebuild both runs' figures to say it again."""
    key = f"moved:{before.id}:{before.finished_at}:{run.id}:{run.finished_at}"
    if key not in st.session_state:
        st.session_state[key] = comparison.since(before, run)
    return st.session_state[key]


def _moved_line(before: Run, run: Run) -> None:
    """Under the headline: the fields changed since the earlier run and how the headline figure
    moved, by compare's noise rule, with a link to the whole comparison."""
    if not (run.id and before.id and before.id != run.id and comparable(before.spec, run.spec)):
        return
    moved = _since(before, run)
    left, right = st.columns([5, 1])
    left.markdown(f":material/difference: {md(moved.text())}")
    with contextlib.suppress(StreamlitAPIException):  # outside the app's navigation: no link
        right.page_link(
            "app_pages/history.py",
            label=f"Compare #{before.id}, #{run.id}",
            icon=":material/compare_arrows:",
            query_params={"compare": f"{before.id},{run.id}"},
        )


def _summary(rep) -> None:
    """A report without a Summary of its own (a failed run, an experiment without one): every
    warning, metric and note."""
    for warning in rep.warnings:
        st.warning(md(warning, lines=True))
    _metrics(rep.metrics)
    for note in rep.notes:
        st.caption(md(note, lines=True))


def _metrics(metrics, width: int = 4) -> None:
    if not metrics:
        return
    width = min(width, len(metrics))
    for start in range(0, len(metrics), width):
        _row(metrics[start : start + width], width)


def _row(metrics, width: int) -> None:
    """One row of figures (None: an empty column). Where a label is too long to show whole in a
    metric, the row's labels go in a row of captions of their own above the values, which wrap
    there: the values then start on one line however many lines a label takes."""
    wrap = not all(label_fits(m.label) for m in metrics if m is not None)
    if wrap:
        for col, metric in zip(st.columns(width), metrics, strict=False):
            if metric is not None:
                col.caption(md(metric.label), help=_help(metric))
    for col, metric in zip(st.columns(width), metrics, strict=False):
        if metric is not None:
            _metric(col, metric, wrap)


def _help(metric) -> str | None:
    return None if metric.help is None else md(metric.help, lines=True)


def _metric(col, metric, labelled_above: bool) -> None:
    # a long value ("92 % (cuda-graph)") is cut off in a metric: its detail goes below
    value, detail = metric_parts(metric.value)
    if labelled_above:
        col.metric(md(metric.label), md(value), label_visibility="collapsed")
    else:
        col.metric(md(metric.label), md(value), help=_help(metric))
    if detail:
        col.caption(md(detail))


def _one_screen(run: Run, rep, summary) -> None:
    """The Summary that fits one screen: merged warnings, the key figures as pairs (two pairs
    a row, each pair side by side), the chart that shows the headline's claim, a few lines; every
    other warning and note in a collapsed Notes."""
    for warning in summary.warnings:
        st.warning(md(warning, lines=True))
    for start in range(0, len(summary.pairs), 2):
        pairs = summary.pairs[start : start + 2]
        _row([metric for pair in pairs for metric in (*pair, None)[:2]], 4)
    titles = [title for title, _ in rep.charts]
    if summary.chart in titles:  # the chart that shows the headline's claim, moved here
        number = titles.index(summary.chart)
        _item(run, "chart", summary.chart, rep.charts[number][1], number)
    for line in summary.prose:
        st.caption(md(line, lines=True))
    if rep.warnings or rep.notes:
        with st.expander("Notes", expanded=False):
            for warning in rep.warnings:
                st.warning(md(warning, lines=True))
            for note in rep.notes:
                st.caption(md(note, lines=True))


def _item(run: Run, kind: str, title: str, content: Any, number: int | None) -> None:
    if kind == "chart":
        st.markdown(f"**{md(title)}**")
        st.altair_chart(content, width="stretch")
        _chart_downloads(content, title, run, number or 0)
    elif kind == "table":
        st.markdown(f"**{md(title)}**")
        st.dataframe(content, hide_index=True, column_config=text_widths(content))
    else:
        with st.expander(md(title)):
            st.code(content[1], language=content[0])


CHAR_PX, MAX_COLUMN_PX = 8, 480  # a text column wide enough for its longest value, up to this


def text_widths(frame) -> dict[str, Any]:
    """Widths for the text columns whose values are longer than their header: the grid sizes a
    column by its header, so "warm-cache" under "scenario" read "warm-cac"."""
    found = {}
    for i, name in enumerate(frame.columns):
        column = frame.iloc[:200, i]  # by position: a repeated name is still one column here
        if pd.api.types.is_numeric_dtype(column) or pd.api.types.is_datetime64_any_dtype(column):
            continue  # numbers are sized by the grid
        longest = max((len(str(v)) for v in column if v is not None), default=0)
        if longest > len(str(name)) + 1:
            width = min(MAX_COLUMN_PX, CHAR_PX * longest + 24)
            found[str(name)] = st.column_config.Column(width=width)
    return found


def _raw(run: Run, rep) -> None:
    _timeline(run)
    with st.expander("Provenance: inputs and environment"):
        left, right = st.columns(2)
        left.dataframe(frames.spec_frame(run.spec), hide_index=True)
        right.dataframe(frames.environment_frame(run.env), hide_index=True)
    if code := workload_code(run):
        cut = " (not the whole file: its hash is not checked)" if code.get("truncated") else ""
        doubt = code_doubt(run)
        with st.expander(f"Workload code: {md(str(code.get('file')))}{cut}"):
            st.caption(f"sha256 {md(str(code.get('sha256')))}")
            if doubt:  # the source is still shown, as what the record holds, not what ran
                st.error(f"Recorded code: {md(doubt)}")
            st.code(str(code.get("source") or ""), language="python")  # text, never run
    for start in range(0, len(rep.downloads), 4):
        cols = st.columns(4)  # buttons side by side at the left, not spread over the page
        for col, (label, name, data, mime) in zip(
            cols, rep.downloads[start : start + 4], strict=False
        ):
            col.download_button(label, data, file_name=name, mime=mime, key=f"dl-{run.id}-{name}")


def _timeline(run: Run) -> None:
    """Where the job's seconds went in its worker, and which worker it was."""
    frame = stages.stage_frame(run)
    if frame is None:
        return
    with st.expander(f"Where the time went: {md(stages.time_line(run))}"):
        if line := stages.worker_line(run):
            st.caption(md(line))
        st.altair_chart(stages.stage_chart(frame), width="stretch")
        st.dataframe(frame, hide_index=True)


def _origin_line(run: Run) -> None:
    """An imported run says so under its headline: its figures are another machine's."""
    where = imported_from(run.origin)
    if where:
        details = run.origin if isinstance(run.origin, dict) else {}
        stamp = details.get("imported_at")
        on = f" on {md(record.when(stamp))}" if stamp is not None else ""
        st.info(
            f"Not recorded here: {md(where)}{on}. Its figures were measured on that machine.",
            icon=":material/move_to_inbox:",
        )


def _chart_downloads(chart, title: str, run: Run, number: int) -> None:
    """PNG, SVG and CSV of one chart side by side, each made only when clicked (a PNG takes
    0.2-5 s): a page of charts draws as fast as without them."""
    stem = chart_export.file_stem(title, run.id)
    key = f"chart-{run.id}-{run.created_at}-{number}"
    why = chart_export.unavailable()
    shown = [f for f in CHART_FILES if why is None or f[0] == "CSV"]
    cols = st.columns(8)  # narrow columns keep the buttons together at the left
    for col, (label, ext, render, mime) in zip(cols, shown, strict=False):
        col.download_button(
            label,
            functools.partial(render, chart),
            file_name=f"{stem}.{ext}",
            mime=mime,
            key=f"{key}-{ext}",
            icon=":material/download:",
            on_click="ignore",
        )
    if why is not None:
        st.caption(f"No PNG or SVG here (vl-convert failed: {md(why)}); the chart's data as CSV.")
