"""End-to-end: /history?compare=A,B opened in headless Chromium shows the headline and charts."""

import os

import pytest
import serving  # the server start/stop, its health check and Chromium's flags
from comparedata import CPU_FUSION, h200_fusion, legacy_runs, stored

from runtime_lab.store.history import History

pytestmark = [pytest.mark.browser, pytest.mark.slow]

if not os.path.exists(serving.CHROMIUM):
    pytest.skip(f"{serving.CHROMIUM} is not installed", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The app on a free port over a history with the CPU and the H200 fusion run."""
    data_dir = tmp_path_factory.mktemp("lab-data")
    history = History(data_dir / "history.sqlite3")
    cpu = history.add(stored(legacy_runs()[CPU_FUSION]))
    gpu = history.add(h200_fusion(legacy_runs()[CPU_FUSION]))
    log = tmp_path_factory.mktemp("server") / "streamlit.log"
    proc, url = serving.start_server(str(data_dir), log)
    try:
        yield url, cpu, gpu
    finally:
        serving.stop_server(proc)  # the server and its worker, as one process group


def test_a_compare_link_shows_the_headline_and_a_chart(served, page):
    url, cpu, gpu = served
    page.goto(f"{url}/history?compare={cpu},{gpu}")
    expect(page.get_by_role("heading", name="History", level=1)).to_be_visible()
    headline = page.get_by_test_id("stAlertContentInfo")
    expect(headline).to_contain_text(f"higher (better) in #{gpu} than #{cpu} (beyond noise)")
    expect(headline).to_contain_text("GPU (CPU vs NVIDIA H200)")
    charts = page.get_by_test_id("stVegaLiteChart")
    expect(charts).to_have_count(3, timeout=60_000)
    expect(charts.first.locator("canvas, svg").first).to_be_visible()
    if os.environ.get("RUNTIME_LAB_SCREENSHOTS"):
        page.screenshot(
            path=os.environ["RUNTIME_LAB_SCREENSHOTS"] + "/compare-h200-cpu.png",
            full_page=True,
        )
