"""History's bundle tools: export a selection as .json.gz, import one (the app's only upload)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pandas as pd
import streamlit as st

from runtime_lab.store import bundle
from runtime_lab.store.bundle_check import BundleError
from runtime_lab.store.history import History, HistoryError
from runtime_lab.ui.form import plain


def bundle_section(history: History, data_dir: Path, rows: list[dict]) -> None:
    """An expander with the export picker and download, and the import uploader."""
    with st.expander("Export or import runs (bundles)", icon=":material/archive:"):
        left, right = st.columns(2)
        with left:
            if rows:
                _export(history, data_dir, pd.DataFrame(rows))
            else:
                st.caption("Nothing to export yet.")
        with right:
            _import(history, data_dir)


def _export(history: History, data_dir: Path, table: pd.DataFrame) -> None:
    labels = table.set_index("id").label
    ids = st.multiselect(
        "Runs to export",
        table["id"].tolist(),
        format_func=lambda i: f"#{i}: {labels[i]}",
        help="one .json.gz with spec, environment, result and the runs' JSON traces "
        "(memory snapshot pickles are never included); docs/bundles.md has the format",
    )
    if not ids:
        return
    try:
        data = bundle.export_runs(history, [int(i) for i in ids], data_dir)
    except (BundleError, HistoryError) as exc:
        st.error(f"Cannot export: {plain(str(exc))}")
        return
    name = f"runtime-lab-{'-'.join(str(i) for i in ids[:6])}.json.gz"
    st.download_button(
        f"Download bundle ({len(data) / 1024:,.0f} KiB)",
        data,
        file_name=name,
        mime="application/gzip",
        icon=":material/download:",
        on_click="ignore",
    )


def _import(history: History, data_dir: Path) -> None:
    upload = st.file_uploader(
        "Import a bundle",
        type=["gz"],
        help=f"a .json.gz from `python -m runtime_lab export` or this page; at most "
        f"{bundle.MAX_BYTES // 2**20} MiB of JSON; parsed as JSON and validated, never executed",
    )
    if upload is None:
        return
    data = upload.getvalue()
    digest = hashlib.sha256(data).hexdigest()
    done = st.session_state.setdefault("imported-bundles", {})
    if digest not in done:  # the uploader keeps its file across reruns: import it once
        if not upload.name.endswith(".json.gz"):
            done[digest] = ("error", f"{upload.name} is not a .json.gz bundle")
        else:
            try:
                done[digest] = ("ok", bundle.import_bytes(data, history, data_dir))
            except (BundleError, HistoryError) as exc:
                done[digest] = ("error", str(exc))
    state, detail = done[digest]
    if state == "ok":
        st.success(f"Imported {len(detail)} run(s): " + ", ".join(f"#{i}" for i in detail))
    else:
        st.error(f"Cannot import {plain(upload.name)}: {plain(detail)}; nothing was imported")


def run_index(table: pd.DataFrame) -> int:
    """The "Open run" choice: ?run=N when that run is listed (whatever its status), else the
    newest done run: a failed or cancelled one has little to draw."""
    wanted = st.query_params.get("run")
    ids = [str(i) for i in table["id"]]
    if wanted is not None and wanted in ids:
        return ids.index(wanted)
    newest, which = _newest_done(table)
    if wanted is not None:
        st.warning(f"Run {plain(str(wanted))} from the link is not listed here; showing {which}.")
    return newest


def _newest_done(table: pd.DataFrame) -> tuple[int, str]:
    """The position of the newest done run (the table is newest first) and how to say it;
    the newest run when none is done."""
    done = [i for i, status in enumerate(table["status"]) if status == "done"]
    return (done[0], "the newest done run") if done else (0, "the newest")
