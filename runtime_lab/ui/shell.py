"""The page frame: the job manager, navigation, an experiment's page, the sidebar."""

from __future__ import annotations

from typing import Any

import streamlit as st

from runtime_lab import config, envvars, registry
from runtime_lab.registry import EXPERIMENTS
from runtime_lab.runner.devices import RayUnavailable
from runtime_lab.runner.jobs import JobManager
from runtime_lab.ui.form import plain, spec_form
from runtime_lab.ui.results import history_call, run_panel
from runtime_lab.ui.targets import choose_target
from runtime_lab.ui.user_workloads import sidebar_lines
from runtime_lab.view import frames
from runtime_lab.view.text import code
from runtime_lab.view.text import markdown as md
from runtime_lab.workloads.describe import Described

# coloured Material icons, not emoji dots: those need a font headless Chromium often lacks
WORKER_DOTS = {
    "idle": ":green[:material/check_circle:]",
    "busy": ":orange[:material/pending:]",
    "starting": ":orange[:material/hourglass_empty:]",
    "restarting": ":orange[:material/restart_alt:]",
}
WORKER_DOWN = ":red[:material/error:]"  # failed to start, or any state not listed


@st.cache_resource(show_spinner="Starting the GPU worker…", on_release=lambda m: m.close())
def manager() -> JobManager:
    """One job manager (and so one worker per device) per server, shared by every session.
    A Ray cluster that can't be used is said in the sidebar; this host's own workers run."""
    try:
        return JobManager()
    except RayUnavailable as exc:
        jobs = JobManager(ray_address="")
        jobs.devices_note = f"{exc}; running on this host's workers only"
        return jobs


def check_data_dir() -> None:
    """Stop with one message when the data directory or another RUNTIME_LAB_* variable can't
    be used: a clear line at the top of the page, before manager() starts any worker, instead
    of a traceback from the manager or workers started with a value nobody meant."""
    problem = config.data_dir_problem()
    if problem:
        st.error(
            f"Runtime Lab cannot start: {plain(problem)}. Point `{config.DATA_DIR_ENV}` at a "
            "writable directory (or unset it for ./.runtime_lab) and restart the server."
        )
        st.stop()
    variable = envvars.first_problem(skip=(config.DATA_DIR_ENV,))
    if variable:
        st.error(
            f"Runtime Lab cannot start: {plain(variable)}. Fix or unset it and restart the "
            "server; no worker was started."
        )
        st.stop()


def navigation() -> Any:
    """Every visible experiment's page (title and icon from its info), overview first."""
    overview = st.Page(
        "app_pages/overview.py", title="Overview", icon=":material/science:", default=True
    )
    lab = [overview]
    lab += [
        st.Page(f"app_pages/{info.name}.py", title=info.title, icon=info.icon)
        for info in registry.visible()
    ]
    records = [st.Page("app_pages/history.py", title="History", icon=":material/history:")]
    return st.navigation({"Lab": lab, "Records": records})


def experiment_page(experiment: str) -> None:
    """An experiment's page: title and intro from its info, the form, the run panel."""
    info = EXPERIMENTS[experiment]
    st.title(info.title)
    st.markdown(info.intro)
    jobs = manager()
    if info.cpu_note and jobs.env and not jobs.env.get("gpus"):
        st.info(info.cpu_note)
    past = history_call(jobs.history.durations, experiment) if jobs.history else None
    # before the form, so it is set before Run is pressed (offered only when the pool has a choice)
    target = choose_target(jobs.status()["lanes"], experiment)
    spec = spec_form(experiment, jobs.env, past)
    run_panel(jobs, experiment, spec, target)


def sidebar(jobs: JobManager, work_files: Described | None = None) -> None:
    status = jobs.status()
    env = jobs.env
    with st.sidebar:
        if work_files is not None:
            sidebar_lines(work_files)
        gpus = env.get("gpus") or []
        if gpus:
            names = sorted({gpu["name"] for gpu in gpus})
            st.markdown(f"**Device:** {md(', '.join(map(str, names)))} ×{len(gpus)}")
        elif env:
            st.markdown("**Device:** CPU only. Streams, events and CUDA graphs need a GPU.")
        else:
            st.markdown("**Device:** waiting for the worker…")
        if status["devices_note"]:
            st.warning(plain(status["devices_note"]))
        for lane in status["lanes"]:
            _lane_line(lane, several=len(status["lanes"]) > 1)
        if jobs.history_notice:
            st.warning(md(jobs.history_notice))
        for key, gbps in config.load_ceilings(jobs.data_dir).items():
            st.caption(f"Copy ceiling, {md(key)}: {gbps:,.0f} GB/s (measured once, cached)")
        if env:
            with st.expander("Environment"):
                st.dataframe(frames.environment_frame(env), hide_index=True)


def _lane_line(lane: dict[str, Any], several: bool) -> None:
    """One worker: its device, state, pid, queue and restarts; what it runs; why it is down."""
    icon = WORKER_DOTS.get(lane["worker_state"], WORKER_DOWN)
    where = ""
    if several:
        kind = md(lane["device_type"]) if lane["device_type"] not in ("", "cpu") else ""
        host = f" on {md(lane['host'])}" if lane["node"] and lane["host"] else ""  # a Ray node's
        where = f" {code(lane['lane'])}{f' · {kind}' if kind else ''}{host}"
    st.markdown(
        f"**Worker:**{where} {icon} {lane['worker_state']} (pid {lane['worker_pid'] or '—'}) · "
        f"queue {lane['queued']} · restarts {lane['restarts']}"
    )
    if lane["running"]:
        st.caption(f"running: {md(lane['running'])}")  # a job's label, as typed
    if lane["worker_error"]:
        st.error(md(lane["worker_error"], lines=True))
