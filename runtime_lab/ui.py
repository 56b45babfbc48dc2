"""The lab's one Streamlit helper module: navigation, pages, sidebar, form, polling, reports."""

from __future__ import annotations

from typing import Any

import streamlit as st

from runtime_lab import config, frames, registry
from runtime_lab.history import HistoryError
from runtime_lab.jobs import JobManager
from runtime_lab.registry import EXPERIMENTS
from runtime_lab.shapes import DTYPES, PRESETS, preset
from runtime_lab.spec import (
    REPEAT_RANGE,
    WARMUP_RANGE,
    SpecError,
    build_spec,
    check_against_env,
)

POLL_S = 0.5
STATE_ICONS = {
    "queued": "⏳",
    "running": "⚙️",
    "done": "✅",
    "failed": "❌",
    "cancelled": "🚫",
    "refused": "⛔",
}


@st.cache_resource(show_spinner="Starting the GPU worker…", on_release=lambda m: m.close())
def manager() -> JobManager:
    """One job manager (and so one worker process) per server, shared by every session."""
    return JobManager()


def navigation() -> Any:
    """Every visible experiment's page (title and icon from its info), overview first."""
    lab = [st.Page("app_pages/overview.py", title="Overview", icon="🧪", default=True)]
    lab += [
        st.Page(f"app_pages/{info.name}.py", title=info.title, icon=info.icon)
        for info in registry.visible()
    ]
    records = [st.Page("app_pages/history.py", title="History", icon="🗂️")]
    return st.navigation({"Lab": lab, "Records": records})


def experiment_page(experiment: str) -> None:
    """An experiment's page: title and intro from its info, the form, the run panel."""
    info = EXPERIMENTS[experiment]
    st.title(info.title)
    st.markdown(info.intro)
    jobs = manager()
    if info.cpu_note and jobs.env and not jobs.env.get("gpus"):
        st.info(info.cpu_note)
    spec = spec_form(experiment, jobs.env)
    run_panel(jobs, experiment, spec)


def sidebar(jobs: JobManager) -> None:
    status = jobs.status()
    env = jobs.env
    with st.sidebar:
        gpus = env.get("gpus") or []
        if gpus:
            st.markdown(f"**Device:** {gpus[0]['name']} ×{len(gpus)}")
        elif env:
            st.markdown("**Device:** CPU only. Streams, events and CUDA graphs need a GPU.")
        else:
            st.markdown("**Device:** waiting for the worker…")
        icon = {"idle": "🟢", "busy": "🟠", "starting": "🟡", "restarting": "🟡"}.get(
            status["worker_state"], "🔴"
        )
        st.markdown(
            f"**Worker:** {icon} {status['worker_state']} (pid {status['worker_pid'] or '—'}) · "
            f"queue {status['queued']} · restarts {status['restarts']}"
        )
        if status["running"]:
            st.caption(f"running: {status['running']}")
        if status["worker_error"]:
            st.error(status["worker_error"])
        if jobs.history_notice:
            st.warning(jobs.history_notice)
        for key, gbps in config.load_ceilings(jobs.data_dir).items():
            st.caption(f"Copy ceiling, {key}: {gbps:,.0f} GB/s (measured once, cached)")
        if env:
            with st.expander("Environment"):
                st.dataframe(frames.environment_frame(env), hide_index=True)


def spec_form(experiment: str, env: dict[str, Any]):
    """The common inputs plus the experiment's own options; returns a valid RunSpec or None."""
    info = EXPERIMENTS[experiment]
    sequences = [name for name, o in info.options.items() if o.kind == "shapes"]
    for name in sequences:
        _sequence_presets(experiment, name, info.options[name])
    with st.form(f"form-{experiment}"):
        cells = iter(st.columns(3))
        shape = info.default_shape  # with a shape sequence the main shape is ignored: no input
        if not sequences:
            shape = next(cells).text_input(
                "Shape", info.default_shape, help="1 to 4 dims: 4096x4096, 4096,4096 or 4096 4096"
            )
        dtype_help = "dtype of the shapes without their own :dtype" if sequences else None
        dtype = next(cells).selectbox("dtype", DTYPES, help=dtype_help)
        devices = ["auto", "cpu"] + [f"cuda:{g['index']}" for g in env.get("gpus") or []]
        device = next(cells).selectbox("Device", devices)
        cols = st.columns(3)
        # no min/max on the widgets: an out-of-range value reaches build_spec and gets its
        # message (Streamlit would silently put the default back and run that instead)
        warmup = cols[0].number_input("Warm-up calls", value=10, step=1, help=_range(WARMUP_RANGE))
        repeat = cols[1].number_input("Timed calls", value=50, step=1, help=_range(REPEAT_RANGE))
        l2_flush = cols[2].checkbox("Flush L2 between calls", value=True)
        options = _option_inputs(info.options, experiment)
        submitted = st.form_submit_button("Run", type="primary")
    if not submitted:
        return None
    try:
        spec = build_spec(
            experiment, shape, dtype, device, warmup, repeat, l2_flush, options=options
        )
    except SpecError as exc:
        for name, problem in exc.problems.items():
            st.error(f"**{name}**: {plain(problem)}")
        return None
    problems = check_against_env(spec, env)
    for name, problem in problems.items():
        st.error(f"**{name}**: {plain(problem)}")
    return None if problems else spec


_MARKDOWN = str.maketrans({c: "\\" + c for c in "\\`*_[]<>$!~|"})


def plain(text: str) -> str:
    """Text that quotes user input, as markdown that renders it literally (no links, images,
    HTML, LaTeX or colour directives): a message may show what was typed, never act on it."""
    return text.translate(_MARKDOWN)


def _option_inputs(specs: dict[str, Any], experiment: str = "") -> dict[str, Any]:
    """Lists one per row (their chips need the width), other values in a row, yes/no below."""
    values: dict[str, Any] = {}
    kinds = {"shapes": [], "multi": [], "value": [], "bool": []}
    for name, option in specs.items():
        kinds[option.kind if option.kind in kinds else "value"].append(name)
    for name in kinds["shapes"] + kinds["multi"]:
        values[name] = _option_input(name, specs[name], experiment)
    for row in filter(None, (kinds["value"], kinds["bool"])):
        for col, name in zip(st.columns(max(3, len(row))), row, strict=False):
            with col:
                values[name] = _option_input(name, specs[name], experiment)
    return values


def _sequence_key(experiment: str, name: str) -> str:
    return f"{experiment}-{name}"


def _apply_preset(key: str) -> None:
    chosen = st.session_state[f"{key}-preset"]
    if chosen in PRESETS:
        st.session_state[key] = preset(chosen, int(st.session_state[f"{key}-seed"]))


def _sequence_presets(experiment: str, name: str, option) -> None:
    """A preset picker above the form (a form's widgets act only on Run): it fills the box."""
    key = _sequence_key(experiment, name)
    st.session_state.setdefault(key, str(option.default))
    left, right = st.columns([3, 1])
    left.selectbox(
        f"Preset for {name}",
        ["typed", *PRESETS],
        format_func=lambda p: "as typed below" if p == "typed" else f"{p}: {PRESETS[p][0]}",
        key=f"{key}-preset",
        on_change=_apply_preset,
        args=(key,),
        help="fills the box below; edit it freely afterwards",
    )
    right.number_input(
        "Preset seed",
        0,
        2**31 - 1,
        key=f"{key}-seed",
        on_change=_apply_preset,
        args=(key,),
        help="seed of the random preset",
    )


def _option_input(name: str, option, experiment: str = "") -> Any:
    """One widget per option kind; values go to build_spec as they are (it validates them)."""
    if option.kind == "shapes":
        key = _sequence_key(experiment, name)
        st.session_state.setdefault(key, str(option.default))
        return st.text_area(name, key=key, help=option.help, height=80)
    if option.kind == "multi":
        default = [c for c in str(option.default).split(",") if c in option.choices]
        return st.multiselect(name, option.choices, default=default, help=option.help)
    if option.kind == "sizes":
        return st.text_input(name, str(option.default), help=option.help)
    if option.choices:
        return st.selectbox(
            name, option.choices, index=option.choices.index(option.default), help=option.help
        )
    if option.kind == "bool":
        return st.checkbox(name, value=bool(option.default), help=option.help)
    bounds = _range((option.low, option.high))
    return st.number_input(
        name, value=int(option.default), step=1, help=f"{option.help} ({bounds})"
    )


def _range(bounds: tuple[int, int]) -> str:
    return f"allowed {bounds[0]} to {bounds[1]}"


def run_panel(jobs: JobManager, experiment: str, spec) -> None:
    """Submit (if asked), poll the session's job without blocking, and draw it when finished."""
    key = f"job:{experiment}"
    if spec is not None:
        st.session_state[key] = jobs.submit(spec)
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


def _poll(jobs: JobManager, job_id: str) -> None:
    @st.fragment(run_every=POLL_S)
    def progress() -> None:
        job = jobs.get(job_id)
        if job.finished:
            st.rerun()  # the whole page, so the result is drawn in the main body
        label = f"{STATE_ICONS[job.state]} {job.spec.label}: {job.state}"
        with st.status(label, expanded=True, state="running"):
            if job.state == "queued":
                st.write(f"Position {job.position} in the queue (one job uses the GPU at a time).")
            else:
                st.write(job.stage or "starting")
                if job.total:
                    st.progress(min(1.0, (job.done or 0) / job.total), text=job.stage)
        if st.button("Cancel", key=f"cancel-{job_id}"):
            jobs.cancel(job_id)

    progress()


def draw(run: dict[str, Any]) -> None:
    """Draw a run's report: headline, metrics, charts, tables, code, provenance, downloads."""
    rep = registry.build_report(run)
    saved = f" · run #{run['id']}" if run.get("id") else ""
    if run["status"] == "done":
        (st.success if rep.ok else st.error)(rep.headline + saved)
    else:
        st.error(f"{rep.headline}{saved}")
    for warning in rep.warnings:
        st.warning(warning)
    if rep.metrics:
        for col, metric in zip(st.columns(min(4, len(rep.metrics))) * 4, rep.metrics, strict=False):
            col.metric(metric.label, metric.value, help=metric.help)
    for note in rep.notes:
        st.caption(note)
    for title, chart in rep.charts:
        st.markdown(f"**{title}**")
        st.altair_chart(chart, width="stretch")
    for title, table in rep.tables:
        st.markdown(f"**{title}**")
        st.dataframe(table, hide_index=True)
    for title, language, source in rep.code:
        with st.expander(title):
            st.code(source, language=language)
    with st.expander("Provenance: inputs and environment"):
        left, right = st.columns(2)
        left.dataframe(frames.spec_frame(run["spec"]), hide_index=True)
        right.dataframe(frames.environment_frame(run.get("env")), hide_index=True)
    for start in range(0, len(rep.downloads), 4):
        cols = st.columns(4)  # buttons side by side at the left, not spread over the page
        for col, (label, name, data, mime) in zip(
            cols, rep.downloads[start : start + 4], strict=False
        ):
            col.download_button(
                label, data, file_name=name, mime=mime, key=f"dl-{run.get('id')}-{name}"
            )


def history_call(fn, *args, **kwargs):
    """Run a history operation; on a locked or unreadable database say so and return None."""
    try:
        return fn(*args, **kwargs)
    except HistoryError as exc:
        st.error(f"History unavailable: {exc}")
        return None
