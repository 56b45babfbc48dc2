"""The compare view: 2 to 6 runs of one experiment, what differs highlighted, charts overlaid."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from runtime_lab.compare import comparison as core
from runtime_lab.compare import kernels as kd
from runtime_lab.record import Run
from runtime_lab.store.history import History
from runtime_lab.ui.results import history_call
from runtime_lab.ui.stored import guarded, reason
from runtime_lab.view.text import markdown as md

QUERY = "compare"  # /history?compare=12,15
CHANGED = "background-color: rgba(255, 190, 0, 0.30)"  # a value unlike the baseline's
# beyond noise, coloured by the glossary's direction: better green, worse red, neither amber
BEYOND = {
    "better": "background-color: rgba(84, 162, 75, 0.25); font-weight: 600",
    "worse": "background-color: rgba(228, 87, 86, 0.25); font-weight: 600",
    "": "background-color: rgba(255, 190, 0, 0.25); font-weight: 600",
}
WITHIN = "color: #6b6b6b"


def compare(runs: list[Run]) -> None:
    """Draw a comparison: headline, spec/environment differences, key figures, charts."""
    try:
        view = core.build(runs)
    except core.CompareError as exc:
        st.error(f"Can't compare these runs: {md(exc)}.")
        return
    st.subheader(md(f"Comparing {view.experiment} runs {', '.join(view.labels)}"))
    if view.workloads:  # above everything: the figures below compare different functions
        st.warning(md(view.workloads), icon=":material/warning:")
    st.info(md(view.headline), icon=":material/compare_arrows:")
    st.markdown("**Spec and environment: the fields that differ**")
    if view.differences.empty:
        st.caption("Every run has the same spec and environment.")
    else:
        st.dataframe(_changed(view.differences, view.labels), hide_index=True, height="content")
    st.markdown("**Key figures**")
    st.caption(
        f"{md(view.labels[0])} is the baseline. Medians and IQRs come from the raw samples where a "
        "run kept them; within noise: the IQRs overlap; no spread recorded: the figure is a "
        "single number, so no noise verdict. Beyond noise is green where the change is better, "
        "red where worse (each figure's direction in the glossary), amber where it has none."
    )
    if view.table.empty:
        st.caption("These runs have no key figures to compare.")
    else:
        st.dataframe(verdict_styles(view.table, view.judged), hide_index=True, height="content")
    for note in view.notes:
        st.caption(md(note, lines=True))
    for found in view.kernel_diffs:
        _kernel_diff(found)
    for title, chart in view.charts:
        st.markdown(f"**{md(title)}**")
        st.altair_chart(chart, width="stretch")


def _kernel_diff(found: kd.KernelDiff) -> None:
    """What the compiler did differently: the spec fields that differ, then the kernels."""
    st.markdown(f"**Kernel diff: {md(found.a)} → {md(found.b)}**")
    changed = "; ".join(f"{f}: {x} → {y}" for f, x, y in found.fields)
    st.caption(
        md(f"{changed or 'The same spec'}. {kd.summary(found)}.")
        + " Matched by name (indices aside), else by the source ops (provenance where recorded, "
        "else the kernel's name); fused n → 1: n kernels of one run are one of the other's."
    )
    table = kd.frame(found)
    if table.empty:
        st.caption("Neither run recorded kernels.")
    else:
        st.dataframe(kd.readable(table), hide_index=True, height="content")


def _changed(diffs: pd.DataFrame, labels: tuple[str, ...]) -> Any:
    """Cells whose value is not the baseline's, highlighted."""
    base = labels[0]

    def style(row: pd.Series) -> list[str]:
        return [CHANGED if c in labels[1:] and row[c] != row[base] else "" for c in row.index]

    return diffs.style.apply(style, axis=1)


def verdict_styles(table: pd.DataFrame, judged: pd.DataFrame) -> Any:
    """Beyond-noise verdicts stand out, coloured better or worse (compare.table.judgements);
    within-noise ones recede."""
    noise = [c for c in table.columns if c.endswith(" noise")]

    def style(frame: pd.DataFrame) -> pd.DataFrame:
        styles = pd.DataFrame("", index=frame.index, columns=frame.columns)
        for column in noise:
            for i, value in frame[column].items():
                if value == core.WITHIN:
                    styles.loc[i, column] = WITHIN
                elif value == core.BEYOND:
                    found = judged[column].iloc[i] if column in judged and i < len(judged) else ""
                    styles.loc[i, column] = BEYOND.get(found, BEYOND[""])
        return styles

    return table.style.apply(style, axis=None)


def compare_section(history: History, table: pd.DataFrame) -> bool:
    """The History page's picker, and the comparison `?compare=` names (the picker's Compare
    button sets it, so a comparison has a link). True when a comparison was drawn."""
    query = st.query_params.get(QUERY)
    _picker(table, query)
    if query is None:
        return False
    try:
        runs = core.load(lambda i: history_call(history.get, i), core.parse_ids(query))
    except core.CompareError as exc:
        st.error(f"Can't compare {md(f'?{QUERY}={query[:60]}')}: {md(exc)}.")
        return False
    except Exception as exc:  # a stored run whose row does not read: this comparison alone
        st.error(f"Can't compare {md(f'?{QUERY}={query[:60]}')}: {md(reason(exc))}.")
        return False
    return guarded("Can't compare these runs", compare, runs)


def _preset(query: str | None, ids: list[int]) -> list[int]:
    """The query's ids that the list shows, as the picker's starting choice."""
    try:
        return [i for i in core.parse_ids(query) if i in ids] if query else []
    except core.CompareError:
        return []  # the page says why below; the picker starts empty


def _picker(table: pd.DataFrame, query: str | None) -> None:
    rows = table.set_index("id")
    ids = [int(i) for i in rows.index]
    with st.expander("Compare runs", expanded=query is not None, icon=":material/compare_arrows:"):
        picked = st.multiselect(
            f"Runs to compare ({core.MIN_RUNS} to {core.MAX_RUNS} of one experiment; the first "
            "is the baseline)",
            ids,
            default=_preset(query, ids),
            format_func=lambda i: f"#{i}: {rows.label[i]}",
        )
        left, right, _ = st.columns([1, 2, 3])
        if left.button("Compare", icon=":material/compare_arrows:"):
            try:
                core.check_choice([(i, rows.experiment[i]) for i in picked])
            except core.CompareError as exc:
                st.error(f"Can't compare: {md(exc)}.")
            else:
                st.query_params[QUERY] = ",".join(map(str, picked))
                st.rerun()
        if query is not None and right.button("Close comparison", icon=":material/close:"):
            del st.query_params[QUERY]
            st.rerun()
