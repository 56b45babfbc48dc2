"""Where a run goes when the pool has a choice: a named worker, or one GPU of each type."""

from __future__ import annotations

from typing import Any

import streamlit as st

BY_DEVICE = "by the device field"
EACH_TYPE = "one GPU of each type (then compare)"


def gpu_types(lanes: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """GPU lanes grouped by device type, in lane order."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for lane in lanes:
        if lane["kind"] == "gpu":
            groups.setdefault(lane["device_type"] or "GPU", []).append(lane)
    return groups


def lane_label(lane: dict[str, Any]) -> str:
    where = f" on {lane['host']}" if lane.get("node") and lane.get("host") else ""
    kind = lane["device_type"] or lane["kind"]
    return f"{lane['lane']} · {kind}{where} · queue {lane['queued'] + bool(lane['running'])}"


def choose_target(lanes: list[dict[str, Any]], experiment: str) -> str | None:
    """The run's target: None (route by the spec's device), EACH_TYPE, or a lane name. Offered
    only when the device field can't say it: a cluster's GPUs, or GPUs of several types."""
    remote = any(lane.get("node") for lane in lanes)
    types = gpu_types(lanes)
    if not remote and len(types) < 2:
        return None
    options = [BY_DEVICE] + ([EACH_TYPE] if len(types) > 1 else [])
    # grouped by node (host), then GPU type, as a cluster is usually read
    ordered = sorted(lanes, key=lambda x: (x.get("host") or "", x["kind"], x["device_type"]))
    labels = {lane_label(lane): lane["lane"] for lane in ordered}
    choice = st.selectbox(
        "Run on",
        options + list(labels),
        key=f"target:{experiment}",
        help="Which worker runs it. 'One GPU of each type' runs the spec on the least-busy GPU "
        "of every type and opens the compare view on the results.",
    )
    if choice == BY_DEVICE:
        return None
    return EACH_TYPE if choice == EACH_TYPE else labels[choice]


def each_type_targets(lanes: list[dict[str, Any]]) -> list[str]:
    """The least-busy lane of every GPU type (ties: the first)."""
    return [
        min(group, key=lambda x: x["queued"] + bool(x["running"]))["lane"]
        for group in gpu_types(lanes).values()
    ]


def batch_panel(jobs: Any, experiment: str, job_ids: list[str]) -> None:
    """The jobs of one 'each type' run: their states while they run; the compare view once
    every one has finished (those that failed are listed with their reasons)."""
    found = [jobs.get(job_id) for job_id in job_ids]
    found = [job for job in found if job is not None]
    if not found:
        return
    rows = [
        {"worker": job.lane, "state": job.state, "run": job.run_id, "error": job.error or ""}
        for job in found
    ]
    st.dataframe(rows, hide_index=True)
    if not all(job.finished for job in found):

        @st.fragment(run_every=1.0)
        def wait() -> None:
            if all(job.finished for job in map(jobs.get, job_ids) if job is not None):
                st.rerun()
            st.caption(f"{sum(j.finished for j in found)} of {len(found)} finished…")

        wait()
        return
    runs = [str(job.run_id) for job in found if job.state == "done" and job.run_id]
    if len(runs) < 2:
        st.warning("Fewer than two runs finished: nothing to compare.")
        return
    del st.session_state[f"batch:{experiment}"]  # open it once, not on every return here
    st.switch_page("app_pages/history.py", query_params={"compare": ",".join(runs)})
