"""The History page's bundle tools and run links in AppTest; the upload itself in Chromium."""

from __future__ import annotations

import pytest
from apphelpers import open_page
from comparedata import CPU_FUSION, CPU_STREAMS, legacy_runs, stored

from runtime_lab import ui
from runtime_lab.store import bundle
from runtime_lab.store.history import History

PAGE = "app_pages/history.py"


@pytest.fixture
def ids(app):
    history = ui.manager().history
    runs = legacy_runs()
    return history.add(stored(runs[CPU_FUSION])), history.add(stored(runs[CPU_STREAMS]))


def test_an_export_selection_offers_a_bundle_that_imports_elsewhere(app, ids, tmp_path):
    fusion, streams = ids
    at = open_page(app, PAGE)
    picker = next(m for m in at.multiselect if m.label == "Runs to export")
    picker.set_value([fusion, streams]).run()
    assert not at.exception
    (button,) = [b for b in at.get("download_button") if "Download bundle" in b.proto.label]
    assert button.proto.label.endswith("KiB)")
    # the same bytes the button serves, imported into another data directory
    data = bundle.export_runs(ui.manager().history, [fusion, streams], ui.manager().data_dir)
    other = History(tmp_path / "other.sqlite3")
    new_ids = bundle.import_bytes(data, other, tmp_path)
    assert len(new_ids) == 2 and all(other.get(i)["origin"] for i in new_ids)


def test_the_uploader_is_there_on_an_empty_history(app):
    at = open_page(app, PAGE)
    assert "No runs recorded yet." in [i.value for i in at.info]
    assert "Nothing to export yet." in [c.value for c in at.caption]
    assert at.get("file_uploader"), "the import uploader is missing"


def test_a_run_link_opens_that_run(app, ids):
    fusion, streams = ids
    app.query_params["run"] = str(fusion)  # the older one: not the default choice
    at = open_page(app, PAGE)
    assert next(s for s in at.selectbox if s.label == "Open run").value == fusion
    # the headline box: green, amber where its verdict doubts it, red for a failed run
    assert any(f"run #{fusion}" in s.value for s in [*at.success, *at.warning, *at.error])


def test_a_run_link_to_a_missing_run_says_so(app, ids):
    app.query_params["run"] = "999"
    at = open_page(app, PAGE)
    assert any("Run 999 from the link is not listed" in w.value for w in at.warning)
    assert next(s for s in at.selectbox if s.label == "Open run").value == max(ids)
