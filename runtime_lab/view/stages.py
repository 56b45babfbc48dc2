"""Where a job's seconds went: the worker's stage timeline as a table, a chart and one line."""

from __future__ import annotations

from typing import Any

import altair as alt
import pandas as pd

from runtime_lab.timeline import HEADLINE_MARK

BEFORE, AFTER, WHOLE = "to the headline", "after the headline", "the job"
LONGEST = 3  # stages named in the one line


def stages(run: Any) -> list[dict[str, Any]]:
    """The run's timeline (worker.stages), or [] for a run recorded before it was kept."""
    worker = getattr(run, "worker", None) or {}
    found = worker.get("stages") if isinstance(worker, dict) else None
    return [s for s in found or () if isinstance(s, dict) and "took_s" in s]


def stage_frame(run: Any) -> pd.DataFrame | None:
    """Every stage change: when it began and how long it took (seconds from the job's start in
    the worker), its share of the job, and whether the page's headline waited for it."""
    rows = stages(run)
    if not rows:
        return None
    frame = pd.DataFrame(rows, columns=["stage", "start_s", "took_s"])
    marks = frame.index[frame["stage"] == HEADLINE_MARK]
    if len(marks):
        frame["phase"] = [BEFORE if i < marks[0] else AFTER for i in frame.index]
    else:
        frame["phase"] = WHOLE
    total = float(frame["start_s"].iloc[-1] + frame["took_s"].iloc[-1])
    frame["share_pct"] = (100 * frame["took_s"] / total).round(1) if total > 0 else None
    return frame


def by_stage(frame: pd.DataFrame) -> pd.DataFrame:
    """Seconds per stage name, summed (a stage can come back: a mode's timing after a sweep)."""
    summed = frame.groupby(["stage", "phase"], sort=False, as_index=False)["took_s"].sum()
    return summed.sort_values("took_s", ascending=False, kind="stable")


def stage_chart(frame: pd.DataFrame, top: int = 15) -> alt.Chart:
    """The longest stages as bars, coloured by whether the headline waited for them."""
    shown = by_stage(frame).head(top)
    order = list(shown["stage"])
    return (
        alt.Chart(shown)
        .mark_bar()
        .encode(
            x=alt.X("took_s:Q", title="seconds in the worker"),
            # every stage named: at the default step Vega hid every other label as overlapping
            y=alt.Y(
                "stage:N", sort=order, title=None, axis=alt.Axis(labelLimit=360, labelOverlap=False)
            ),
            color=alt.Color("phase:N", title=None, legend=alt.Legend(orient="bottom")),
            tooltip=["stage:N", "phase:N", alt.Tooltip("took_s:Q", format=".3f")],
        )
        .properties(height=alt.Step(24))
    )


def time_line(run: Any, longest: int = LONGEST) -> str | None:
    """One line: the job's seconds in the worker, when the headline was ready, the longest
    stages. None for a run without a timeline."""
    frame = stage_frame(run)
    if frame is None:
        return None
    total = float(frame["start_s"].iloc[-1] + frame["took_s"].iloc[-1])
    line = f"{total:.1f} s in the worker"
    marks = frame[frame["stage"] == HEADLINE_MARK]
    if len(marks):
        line += f", headline ready at {float(marks['start_s'].iloc[0]):.1f} s"
    longest = by_stage(frame[frame["stage"] != HEADLINE_MARK]).head(longest)
    named = ", ".join(f"{r.stage} {r.took_s:.1f} s" for r in longest.itertuples())
    return f"{line}; longest: {named}" if named else line


def worker_line(run: Any) -> str | None:
    """Which process ran the job and what shared the host with it, in one line."""
    worker = getattr(run, "worker", None) or {}
    if not isinstance(worker, dict) or worker.get("pid") is None:
        return None
    jobs = worker.get("jobs_before")
    line = f"Worker pid {worker['pid']}" + (f", {jobs} job(s) before this one" if jobs else "")
    if worker.get("started_as_spare"):
        line += ", started as a warm spare before the job came"
    if worker.get("forked"):
        line += ", forked from the lab's zygote (torch imported once, CUDA its own)"
    baseline = (getattr(run, "process_probe", None) or {}).get("baseline") or {}
    if not isinstance(baseline, dict):
        baseline = {}
    if baseline.get("zygote_prewarm") == "done":
        line += (
            f", the compiler's device-free set-up done once in the zygote "
            f"({baseline.get('zygote_prewarm_s')} s there, one CPU compile, then reset)"
        )
    if baseline.get("prewarm") == "done":
        line += (
            f", its compiler warmed by one tiny compile at start ({baseline.get('prewarm_s')} s, "
            "then reset: the job's compile figures and counts exclude it)"
        )
    if baseline.get("vec_isa_s") is not None:
        line += (
            f", the CPU's vector-ISA check answered at start ({baseline['vec_isa_s']} s, from "
            "the machine's cache: not in any compile figure)"
        )
    if worker.get("fresh_after_disturbed"):
        line += ", fresh: its predecessor ran " + ", ".join(
            worker.get("previous_disturbed_by") or ["a tool"]
        )
    if worker.get("spare_started_during_evidence"):
        line += (
            "; the next worker started during this job's evidence phase (its profiler figures "
            "shared the host with that start; every timed figure came before it)"
        )
    return line + "."
