"""End-to-end: a real Streamlit server driven by headless Chromium through Playwright."""

import gzip
import json
import os
import re
from pathlib import Path

import pytest
import serving  # the server start/stop, its health check and Chromium's flags

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
RUN_TIMEOUT_MS = 90_000
CHROMIUM, CHROMIUM_ARGS = serving.CHROMIUM, serving.CHROMIUM_ARGS

if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is not installed", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect


SCREENS = os.environ.get("TEST_SCREENS_DIR", "")


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("lab-data")


@pytest.fixture(scope="module")
def server(tmp_path_factory, data_dir):
    """The app served on a free port with its own data dir; yields the base URL."""
    log = tmp_path_factory.mktemp("server") / "streamlit.log"
    proc, url = serving.start_server(str(data_dir), log)
    try:
        yield url
    finally:
        serving.stop_server(proc)  # the server and its worker, as one process group


def wait_idle(page, timeout_ms=5_000):
    """Wait until Streamlit's 'running' indicator is gone."""
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=timeout_ms)


def open_page(page, url, title):
    page.goto(url)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title).click()
    expect(page.get_by_role("heading", name=title, level=1)).to_be_visible()
    wait_idle(page)


def shown_charts(page, tab):
    """Open a report tab; the charts drawn in it (the other tabs' stay hidden in the page)."""
    page.get_by_role("tab", name=tab, exact=True).click()
    return page.locator('[data-testid="stVegaLiteChart"]:visible')


def headline_box(page, text):
    """The headline's box: green when its verdict holds, amber when it says what to doubt (a
    CPU's timings are often too noisy to hold), never red for a run that passed."""
    boxes = '[data-testid="stAlertContentSuccess"], [data-testid="stAlertContentWarning"]'
    return page.locator(boxes).filter(has_text=text)


def open_notes(page):
    """The Summary's collapsed Notes: every warning and note the one screen leaves out."""
    page.get_by_test_id("stExpander").filter(has_text="Notes").first.locator("summary").click()


def choose(page, label, option):
    """Streamlit selectboxes are comboboxes: open the list, then click the option."""
    page.get_by_test_id("stSelectbox").filter(has_text=label).get_by_role("combobox").click()
    page.get_by_role("option", name=option, exact=True).click()


def test_streams_run_on_cpu(server, page):
    open_page(page, server, "Streams & events")
    page.get_by_test_id("stTextInput").filter(has_text="Shape").locator("input").fill("128x128")
    choose(page, "Device", "cpu")
    page.get_by_role("button", name="Run", exact=True).click()

    said = "No CUDA streams on this CPU: the matmul ran on the host twice"
    box = headline_box(page, said).filter(has_text="run #")  # amber if its timing is in doubt
    expect(box).to_be_visible(timeout=RUN_TIMEOUT_MS)
    expect(box).to_contain_text("the results matched exactly (max |side − reference| 0)")
    wait_idle(page)
    error = page.get_by_test_id("stMetric").filter(has_text="max |side − reference|")
    # on Summary (the Raw tab names it the same), never 0.000e+00
    expect(error.get_by_test_id("stMetricValue").first).to_have_text("0")
    charts = shown_charts(page, "Summary")  # the one chart of the headline's claim
    expect(charts.first.locator("canvas, svg").first).to_be_visible()
    page.get_by_role("tab", name="Raw", exact=True).click()  # every figure of the report
    tolerance = page.get_by_test_id("stMetric").filter(has_text="tolerance")
    expect(tolerance.get_by_test_id("stMetricValue")).to_have_text("pass")


def test_history_lists_the_run(server, page):
    open_page(page, server, "History")
    main = page.get_by_test_id("stMain")  # the sidebar has its own (collapsed) dataframe
    expect(main.get_by_test_id("stDataFrame").first).to_be_visible()
    # The grid is a canvas; the selectbox names each run in text (its combobox input's value).
    opened = main.get_by_role("combobox", name="Open run")
    # the experiment, the workload, the shape
    expect(opened).to_have_value(re.compile(r"#\d+: streams · matmul · 128x128"))


def test_fusion_run_on_cpu(server, page):
    open_page(page, server, "Fusion & compile")
    page.get_by_test_id("stTextInput").filter(has_text="Shape").locator("input").fill("128x128")
    choose(page, "Device", "cpu")
    page.get_by_role("button", name="Run", exact=True).click()
    # a cold C++ compile on this CPU takes 15-25 s, then every mode is checked and timed
    success = headline_box(page, "fusion pointwise CPU 128x128")
    saved = success.filter(has_text="run #")  # the whole run, stored (the partial has no id)
    expect(saved).to_be_visible(timeout=4 * RUN_TIMEOUT_MS)
    wait_idle(page)
    # the figures drawn while the evidence phase ran are replaced by the whole run
    expect(page.get_by_text("Figures so far")).to_have_count(0, timeout=30_000)
    expect(success).to_have_count(1)
    expect(success).to_contain_text("inductor 1 kernel vs eager 4")
    compiled = page.get_by_test_id("stMetric").filter(has_text="compiled kernels")
    expect(compiled.get_by_test_id("stMetricValue")).to_contain_text("1 per call")  # on Summary
    expect(shown_charts(page, "Summary").first).to_be_visible()  # time per call: the claim
    expect(shown_charts(page, "Kernels").first.locator("canvas, svg").first).to_be_visible()
    expect(shown_charts(page, "Timing").first).to_be_visible()  # bandwidth
    expect(shown_charts(page, "Compile").first).to_be_visible()  # compile latency


def test_fusion_runs_a_catalog_workload_on_cpu(server, page):
    open_page(page, server, "Fusion & compile")
    choose(page, "Workload", "rms_norm: RMSNorm (Llama style, fp32 upcast)")
    wait_idle(page)
    shape = page.get_by_test_id("stTextInput").filter(has_text="Shape").locator("input")
    expect(shape).to_have_value("1024x1024")  # the workload's CPU shape, put in by the picker
    expect(page.get_by_text("Llama's RMSNorm upcasts to float32").first).to_be_visible()
    shape.fill("256x512")
    choose(page, "Device", "cpu")
    page.get_by_role("button", name="Run", exact=True).click()
    success = headline_box(page, "fusion rms_norm CPU")
    expect(success.filter(has_text="run #")).to_be_visible(timeout=4 * RUN_TIMEOUT_MS)
    wait_idle(page)
    open_notes(page)
    expect(page.get_by_text("What to look for (rms_norm)").first).to_be_visible()
    page.get_by_role("tab", name="Raw", exact=True).click()  # every figure of the report
    bytes_metric = page.get_by_test_id("stMetric").filter(has_text="bytes: eager vs ideal")
    expect(bytes_metric).to_have_count(1)
    roofline = page.get_by_text("Roofline: achieved TFLOP/s", exact=False)
    shown_charts(page, "Timing")
    expect(roofline.first).to_be_visible()
    if SCREENS:  # TEST_SCREENS_DIR=DIR keeps a picture of the report to look at
        page.screenshot(path=f"{SCREENS}/cpu-fusion-rms-norm-timing.png", full_page=True)


def test_history_draws_an_h200_streams_run(server, page, data_dir):
    """A run recorded on the H200, stored in this server's history, redrawn in the browser:
    the per-stream timeline renders without a GPU."""
    from runtime_lab.record import Run
    from runtime_lab.store.history import History

    run = json.loads(
        gzip.decompress((REPO / "tests/fixtures/h200/streams-run.json.gz").read_bytes())
    )
    run["result"]["trace_file"] = None
    stored = {**run, "job_id": "h200", "experiment": "streams", "device": "cuda:0"}
    stored["label"] = "streams 4096x4096 float32 cuda:0 (H200)"
    History(data_dir / "history.sqlite3").add(Run.from_dict(stored))
    open_page(page, server, "History")
    main = page.get_by_test_id("stMain")
    expect(main.get_by_role("combobox", name="Open run")).to_have_value(re.compile("H200"))
    success = page.get_by_test_id("stAlertContentSuccess").filter(
        has_text="The side-stream matmul ordered by events (correct) matched"
    )
    expect(success).to_contain_text("20/20 (missing-producer-wait)")
    wait_idle(page, 60_000)  # nine timelines, overlap and timing charts to draw
    metric = page.get_by_test_id("stMetric").filter(has_text="missing-producer-wait: wrong results")
    expect(metric.get_by_test_id("stMetricValue").first).to_have_text("20")  # on Summary
    expect(shown_charts(page, "Summary").first).to_be_visible()  # wrong results per ordering
    timeline = shown_charts(page, "Timing").nth(1)  # happens-before, then the timelines
    expect(timeline.locator("canvas, svg").first).to_be_visible()
    if os.environ.get("RUNTIME_LAB_SCREENSHOTS"):
        page.screenshot(
            path=os.environ["RUNTIME_LAB_SCREENSHOTS"] + "/streams-h200.png", full_page=True
        )


def test_a_page_url_opened_directly_keeps_the_lab_navigation(server, page):
    """A bookmarked page URL runs app.py's st.navigation, not a legacy pages/ folder listing."""
    assert not (REPO / "pages").exists(), "a pages/ folder turns on Streamlit's legacy MPA"
    page.goto(f"{server}/streams")
    expect(page.get_by_role("heading", name="Streams & events", level=1)).to_be_visible()
    nav = page.get_by_test_id("stSidebarNav")
    expect(nav.get_by_role("link", name="Fusion & compile", exact=True)).to_be_visible()
    expect(nav.get_by_role("link", name="streams", exact=True)).to_have_count(0)
