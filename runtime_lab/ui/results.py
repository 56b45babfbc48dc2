"""A submitted job: polling its progress, drawing its report, history calls."""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Mapping
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitAPIException

import runtime_lab.ui.links as links
from runtime_lab import record, registry
from runtime_lab.record import Run
from runtime_lab.registry import EXPERIMENTS
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import RunSpec, SpecError
from runtime_lab.store.estimate import device_kind, estimate
from runtime_lab.store.history import HistoryError
from runtime_lab.ui.targets import EACH_TYPE, batch_panel, each_type_targets
from runtime_lab.view import export as chart_export
from runtime_lab.view import frames
from runtime_lab.view.origin import imported_from
from runtime_lab.view.text import code
from runtime_lab.view.text import markdown as md

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
        shown = jobs.last_done(spec, target)  # same spec again: its result at once, said so
        if shown is not None:
            st.session_state[key] = shown.id
            st.session_state[f"shown-again:{shown.id}"] = True
        else:
            _submit(jobs, key, spec, target)
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
        if job.partial is not None:  # before the poll: its fragment reruns the page on a new one
            st.session_state[f"drawn-phase:{job_id}"] = job.phase
        _poll(jobs, job_id)
        if job.partial is not None:
            _draw_partial(job)
        return
    if job.state == "refused":
        st.error(f"Not run: {md(job.error, lines=True)}")
        return
    if job.history_error:
        st.warning(f"Shown, but not saved to history: {md(job.history_error)}")
    if st.session_state.get(f"shown-again:{job.id}") and _measure_again(jobs, key, job):
        st.rerun()
    draw(job.as_run())


def _submit(jobs: JobManager, key: str, spec, target: str | None) -> None:
    st.session_state[key] = jobs.submit(spec, target=target)
    st.session_state[f"estimate:{st.session_state[key]}"] = _expected(jobs, spec)


def _measure_again(jobs: JobManager, key: str, job) -> bool:
    """Say that this result is one this server measured before for the same spec, with a
    button that measures it again; True once pressed (the new job is the session's now)."""
    ago = time.time() - (job.finished_at or time.time())
    st.info(
        f"**Same spec as run #{job.run_id}**, measured by this server {ago:.0f} s ago: shown "
        "at once, not measured again.",
        icon=":material/history:",
    )
    if not st.button("Measure again", key=f"again-{job.id}", icon=":material/replay:"):
        return False
    st.session_state.pop(f"shown-again:{job.id}", None)
    _submit(jobs, key, job.spec, job.target)
    return True


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
        drawn = st.session_state.get(f"drawn-phase:{job_id}")
        if job.finished or (job.partial is not None and job.phase != drawn):
            st.rerun()  # the whole page, so the result (or what is in so far) is drawn below
        label = f"{STATE_ICONS[job.state]} {md(job.spec.label)}: {job.state}"
        with st.status(label, expanded=True, state="running"):
            if job.state == "queued":
                st.write(
                    f"Position {job.position} in the queue of {code(job.lane)} "
                    "(one job per device at a time; other devices run side by side)."
                )
            else:
                st.markdown(md(job.stage or "starting"))
                if job.started_at:
                    expected = st.session_state.get(f"estimate:{job_id}")
                    running = f"Running for {time.time() - job.started_at:.0f} s"
                    st.caption(f"{running}; {expected}." if expected else f"{running}.")
                if job.total:
                    st.progress(min(1.0, (job.done or 0) / job.total), text=md(job.stage))
        if st.button("Cancel", key=f"cancel-{job_id}"):
            jobs.cancel(job_id)

    progress()


def _draw_partial(job) -> None:
    """What the job has measured so far (every steady state at "headline", compile latency too
    at "evidence"), drawn once per phase below the status while the rest is collected. It is
    the job's own partial result: never stored; the run is saved, and drawn whole, at its end."""
    st.info(
        "**Figures so far**: the timing is done; the evidence (kernels from the profiler, "
        "traces, the compile trace) is still being collected. Saved to history when it ends.",
        icon=":material/pending:",
    )
    draw(dataclasses.replace(job, state="done", result=job.partial).as_run())


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
    A run document (plain data) is read as a Run. Every word of the report may be a stored
    string (a bundle's run says anything), so each is escaped (md): shown, never acted on."""
    run = Run.of(run)
    rep = registry.build_report(run)
    saved = f" · run #{run.id}" if run.id else ""
    if run.status == "done":
        (st.success if rep.ok else st.error)(md(rep.headline) + saved)
    else:
        st.error(f"{md(rep.headline)}{saved}")
    _origin_line(run)
    _run_links(run)
    for warning in rep.warnings:
        st.warning(md(warning, lines=True))
    if rep.metrics:
        for col, metric in zip(st.columns(min(4, len(rep.metrics))) * 4, rep.metrics, strict=False):
            shown = None if metric.help is None else md(metric.help, lines=True)
            col.metric(md(metric.label), md(metric.value), help=shown)
    for note in rep.notes:
        st.caption(md(note, lines=True))
    for number, (title, chart) in enumerate(rep.charts):
        st.markdown(f"**{md(title)}**")
        st.altair_chart(chart, width="stretch")
        _chart_downloads(chart, title, run, number)
    for title, table in rep.tables:
        st.markdown(f"**{md(title)}**")
        st.dataframe(table, hide_index=True)
    for title, language, source in rep.code:
        with st.expander(md(title)):
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


def history_call(fn, *args, **kwargs):
    """Run a history operation; on a locked or unreadable database say so and return None."""
    try:
        return fn(*args, **kwargs)
    except HistoryError as exc:
        st.error(f"History unavailable: {md(exc)}")
        return None
