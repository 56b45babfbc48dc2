"""A submitted job: polling its progress, drawing its report, history calls."""

from __future__ import annotations

import functools
import time
from collections.abc import Mapping
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitAPIException

import runtime_lab.ui.links as links
from runtime_lab import registry
from runtime_lab.record import Run
from runtime_lab.registry import EXPERIMENTS
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import RunSpec, SpecError
from runtime_lab.store.estimate import device_kind, estimate
from runtime_lab.store.history import HistoryError
from runtime_lab.ui.targets import EACH_TYPE, batch_panel, each_type_targets
from runtime_lab.view import export as chart_export
from runtime_lab.view import frames

POLL_S = 0.5
# Material icons ship with Streamlit: emoji need a font headless Chromium often lacks
STATE_ICONS = {
    "queued": ":material/hourglass_empty:",
    "running": ":material/settings:",
    "done": ":material/check_circle:",
    "failed": ":material/error:",
    "cancelled": ":material/cancel:",
    "refused": ":material/block:",
}
# (label, extension, renderer, MIME type) of the files offered under every chart
CHART_FILES = (
    ("PNG", "png", chart_export.to_png, "image/png"),
    ("SVG", "svg", chart_export.to_svg, "image/svg+xml"),
    ("CSV", "csv", chart_export.to_csv, "text/csv"),
)
CHART_LABELS = tuple(f[0] for f in CHART_FILES)


def run_panel(jobs: JobManager, experiment: str, spec, target: str | None = None) -> None:
    """Submit (if asked) to `target` (see ui.targets.choose_target), poll the session's job
    without blocking, and draw it when finished."""
    key, batch = f"job:{experiment}", f"batch:{experiment}"
    if spec is not None and target == EACH_TYPE:
        lanes = jobs.status()["lanes"]
        st.session_state[batch] = [
            jobs.submit(spec, target=name) for name in each_type_targets(lanes)
        ]
        st.session_state.pop(key, None)
    elif spec is not None:
        st.session_state[key] = jobs.submit(spec, target=target)
        st.session_state[f"estimate:{st.session_state[key]}"] = _expected(jobs, spec)
        st.session_state.pop(batch, None)
    if st.session_state.get(batch):
        batch_panel(jobs, experiment, st.session_state[batch])
        return
    job_id = st.session_state.get(key)
    job = jobs.get(job_id) if job_id else None
    if job is None:
        st.info("Choose a shape, dtype and device, then press **Run**.")
        return
    if not job.finished:
        _poll(jobs, job_id)
        return
    if job.state == "refused":
        st.error(f"Not run: {job.error}")
        return
    if job.history_error:
        st.warning(f"Shown, but not saved to history: {job.history_error}")
    draw(job.as_run())


def _expected(jobs: JobManager, spec) -> str | None:
    """The estimate said while a job runs ("expected about 40 s here (…)"), or None."""
    past = history_call(jobs.history.durations, spec.experiment) if jobs.history else None
    env = jobs.env or {}
    kind = device_kind(
        spec.device if spec.device != "auto" else ("cuda" if env.get("gpus") else "cpu")
    )
    found = estimate(
        EXPERIMENTS[spec.experiment], spec.to_dict(), kind, past or [], env.get("hostname")
    )
    return f"expected {found.text()}" if found else None


def _poll(jobs: JobManager, job_id: str) -> None:
    @st.fragment(run_every=POLL_S)
    def progress() -> None:
        job = jobs.get(job_id)
        if job.finished:
            st.rerun()  # the whole page, so the result is drawn in the main body
        label = f"{STATE_ICONS[job.state]} {job.spec.label}: {job.state}"
        with st.status(label, expanded=True, state="running"):
            if job.state == "queued":
                st.write(
                    f"Position {job.position} in the queue of `{job.lane}` "
                    "(one job per device at a time; other devices run side by side)."
                )
            else:
                st.write(job.stage or "starting")
                if job.started_at:
                    expected = st.session_state.get(f"estimate:{job_id}")
                    running = f"Running for {time.time() - job.started_at:.0f} s"
                    st.caption(f"{running}; {expected}." if expected else f"{running}.")
                if job.total:
                    st.progress(min(1.0, (job.done or 0) / job.total), text=job.stage)
        if st.button("Cancel", key=f"cancel-{job_id}"):
            jobs.cancel(job_id)

    progress()


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


def draw(run: Run | Mapping[str, Any]) -> None:
    """Draw a run's report: headline, metrics, charts, tables, code, provenance, downloads.
    A run document (plain data) is read as a Run."""
    run = Run.of(run)
    rep = registry.build_report(run)
    saved = f" · run #{run.id}" if run.id else ""
    if run.status == "done":
        (st.success if rep.ok else st.error)(rep.headline + saved)
    else:
        st.error(f"{rep.headline}{saved}")
    _run_links(run)
    for warning in rep.warnings:
        st.warning(warning)
    if rep.metrics:
        for col, metric in zip(st.columns(min(4, len(rep.metrics))) * 4, rep.metrics, strict=False):
            col.metric(metric.label, metric.value, help=metric.help)
    for note in rep.notes:
        st.caption(note)
    for number, (title, chart) in enumerate(rep.charts):
        st.markdown(f"**{title}**")
        st.altair_chart(chart, width="stretch")
        _chart_downloads(chart, title, run, number)
    for title, table in rep.tables:
        st.markdown(f"**{title}**")
        st.dataframe(table, hide_index=True)
    for title, language, source in rep.code:
        with st.expander(title):
            st.code(source, language=language)
    with st.expander("Provenance: inputs and environment"):
        left, right = st.columns(2)
        left.dataframe(frames.spec_frame(run.spec), hide_index=True)
        right.dataframe(frames.environment_frame(run.env), hide_index=True)
    for start in range(0, len(rep.downloads), 4):
        cols = st.columns(4)  # buttons side by side at the left, not spread over the page
        for col, (label, name, data, mime) in zip(
            cols, rep.downloads[start : start + 4], strict=False
        ):
            col.download_button(label, data, file_name=name, mime=mime, key=f"dl-{run.id}-{name}")


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
        st.caption(f"No PNG or SVG here (vl-convert failed: {why}); the chart's data as CSV.")


def history_call(fn, *args, **kwargs):
    """Run a history operation; on a locked or unreadable database say so and return None."""
    try:
        return fn(*args, **kwargs)
    except HistoryError as exc:
        st.error(f"History unavailable: {exc}")
        return None
