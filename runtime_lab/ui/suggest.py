"""A finished run's suggested fix on its page: the explanation, a button that runs it, before/after."""

from __future__ import annotations

import contextlib

import pandas as pd
import streamlit as st
from streamlit.errors import StreamlitAPIException

from runtime_lab import registry
from runtime_lab.record import Run
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import RunSpec, SpecError
from runtime_lab.view.text import markdown as md

BUTTON = "Apply the suggestion and run again"


def _from(job_id: str) -> str:
    return f"applied-from:{job_id}"


def panel(jobs: JobManager, key: str, job) -> bool:
    """Under the explanation of a recompile: the button that runs the fix (True once pressed:
    the new job is the session's now); for a run that applied one, its graphs before and after."""
    stage = registry.suggester(job.spec.experiment)
    run = job.as_run()
    if stage is None or run.status != "done":
        return False
    result = registry.load(run)
    before = st.session_state.get(_from(job.id))
    if before is not None:
        _before_after(stage, before, run, result)
    found = stage.for_run(run.spec, result)
    if found is None:
        return False
    st.info(md(found.explanation), icon=":material/lightbulb:")
    if not st.button(BUTTON, key=f"apply-{job.id}", icon=":material/auto_fix_high:"):
        return False
    try:
        spec = RunSpec.from_dict(stage.applied(run.spec, found))
    except SpecError as exc:
        st.error(f"Can't apply it: {md(exc)}")
        return False
    st.session_state[key] = jobs.submit(spec, target=job.target)
    st.session_state[_from(st.session_state[key])] = run
    return True


def _before_after(stage, before: Run, after: Run, result) -> None:
    earlier = registry.load(before)
    named = stage.ran_as(result)  # a mode named as the new run ran it: with its marks
    rows = [(named[mode], a, b) for mode, a, b in stage.before_after(earlier, result)]
    table = pd.DataFrame(
        rows, columns=["mode", f"graphs in #{before.id}", f"graphs in #{after.id}"]
    )
    # the bold is this page's markup; only the text inside it is escaped
    st.markdown(f"**{md(f'Suggestion applied: run #{before.id} → run #{after.id}')}**")
    st.dataframe(table, hide_index=True, height="content")
    said = stage.marks_line(earlier, result, (f"run #{before.id}", f"run #{after.id}"))
    if said:
        st.caption(md(said))
    if before.id and after.id:
        # drawn outside the app's navigation (a bare script) there is no page to link to
        with contextlib.suppress(StreamlitAPIException):
            st.page_link(
                "app_pages/history.py",
                label=f"Compare #{before.id} and #{after.id}",
                icon=":material/compare_arrows:",
                query_params={"compare": f"{before.id},{after.id}"},
            )
