"""A submitted job: polling its progress, drawing its report, history calls."""

from __future__ import annotations

import dataclasses
import time

import streamlit as st

from runtime_lab.registry import EXPERIMENTS
from runtime_lab.runner.jobs import JobManager
from runtime_lab.store.estimate import device_kind, estimate
from runtime_lab.store.history import HistoryError
from runtime_lab.ui.report import CHART_LABELS, draw
from runtime_lab.ui.suggest import panel as suggestion_panel
from runtime_lab.ui.targets import EACH_TYPE, batch_panel, each_type_targets
from runtime_lab.view.text import code
from runtime_lab.view.text import markdown as md

__all__ = [
    "CHART_LABELS",
    "POLL_S",
    "STATE_ICONS",
    "draw",
    "history_call",
    "run_panel",
]

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
    # the same three slots whether running or done: the whole run's report is drawn where the
    # partial one was, replacing it element by element instead of below it
    status, said, body = st.container(), st.container(), st.container()
    if not job.finished:
        if job.partial is not None:  # before the poll: its fragment reruns the page on a new one
            st.session_state[f"drawn-phase:{job_id}"] = job.phase
        with status:
            _poll(jobs, job_id)
        if job.partial is not None:
            _draw_partial(job, said, body)
        return
    if job.state == "refused":
        said.error(f"Not run: {md(job.error, lines=True)}")
        return
    if job.history_error:
        said.warning(f"Shown, but not saved to history: {md(job.history_error)}")
    if st.session_state.get(f"shown-again:{job.id}"):
        with said:
            if _measure_again(jobs, key, job):
                st.rerun()
    with said:  # a recompile's suggested fix, one click away (ui/suggest.py)
        if suggestion_panel(jobs, key, job):
            st.rerun()
    with body:
        draw(job.as_run(), before=_before(jobs, experiment, job))


def _before(jobs: JobManager, experiment: str, job):
    """The run this session drew last for the experiment before `job`'s (fixed at its first
    draw, so every rerun of the page says the same), or None: the first, or not stored."""
    key, last = f"before:{job.id}", f"last-run:{experiment}"
    if key not in st.session_state:
        shown = st.session_state.get(last)
        st.session_state[key] = shown if shown != job.run_id else None
        if job.run_id:
            st.session_state[last] = job.run_id
    before = st.session_state[key]
    if before is None or jobs.history is None:
        return None
    return history_call(jobs.history.get, before)


def _submit(jobs: JobManager, key: str, spec, target: str | None, reuse: bool = True) -> None:
    st.session_state[key] = jobs.submit(spec, target=target, reuse=reuse)
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
    # asked to measure again: all of it, no compile figure taken from an earlier run
    _submit(jobs, key, job.spec, job.target, reuse=False)
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


PHASE_SAYS = {
    "headline": "**Figures so far**: every mode's steady state on the lab's clock. Still to "
    "come: the back-to-back loops, the two cross-check clocks and the compile latencies "
    "(timed, this process still clean), then the evidence (profiler kernels, traces, the "
    "compile trace). Saved to history when it ends.",
    "evidence": "**Figures so far**: the timing is done; the evidence (kernels from the "
    "profiler, traces, the compile trace) is still being collected. Saved to history when it "
    "ends.",
}


def _draw_partial(job, said, body) -> None:
    """What the job has measured so far (every steady state at "headline", compile latency too
    at "evidence"), drawn once per phase below the status while the rest is collected. It is
    the job's own partial result: never stored; the run is saved, and drawn whole, at its end."""
    said.info(PHASE_SAYS.get(job.phase, PHASE_SAYS["evidence"]), icon=":material/pending:")
    with body:
        draw(dataclasses.replace(job, state="done", result=job.partial).as_run(), partial=True)


def history_call(fn, *args, **kwargs):
    """Run a history operation; on a locked or unreadable database say so and return None."""
    try:
        return fn(*args, **kwargs)
    except HistoryError as exc:
        st.error(f"History unavailable: {md(exc)}")
        return None
