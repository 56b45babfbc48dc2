"""End-to-end: the History page's uploader in headless Chromium imports a bundle, refuses a bad one."""

import os

import pytest
import serving  # the server start/stop, its health check and Chromium's flags
from comparedata import CPU_FUSION, legacy_runs, stored

from runtime_lab.store import bundle
from runtime_lab.store.history import History

pytestmark = [pytest.mark.browser, pytest.mark.slow]

if not os.path.exists(serving.CHROMIUM):
    pytest.skip(f"{serving.CHROMIUM} is not installed", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect


def test_upload_a_bundle_then_a_truncated_one(tmp_path, page):
    source = tmp_path / "source"
    source.mkdir()
    history = History(source / "history.sqlite3")
    run_id = history.add(stored(legacy_runs()[CPU_FUSION]))
    good = tmp_path / "good.json.gz"
    good.write_bytes(bundle.export_runs(history, [run_id], source))
    bad = tmp_path / "bad.json.gz"
    bad.write_bytes(good.read_bytes()[:-40])
    served = tmp_path / "served"
    proc, url = serving.start_server(str(served), tmp_path / "streamlit.log")
    try:
        page.goto(f"{url}/history")
        page.get_by_text("Export or import runs (bundles)").click()
        page.locator("input[type=file]").set_input_files(str(bad))
        expect(page.get_by_text("Cannot import bad.json.gz")).to_be_visible()
        assert History(served / "history.sqlite3").list() == []  # nothing partly stored
        page.locator("input[type=file]").set_input_files(str(good))
        expect(page.get_by_text("Imported 1 run(s)")).to_be_visible()
        stored_runs = History(served / "history.sqlite3").list()
        assert len(stored_runs) == 1
    finally:
        serving.stop_server(proc)
