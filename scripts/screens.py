"""Screenshots of every page into docs/screens/: CPU default runs, then the recorded H200 runs."""

# .venv/bin/python -m scripts.screens [--only cpu|h200] [--out DIR] [--h200 /work/.device/3/h200]
#
# CPU: a server on a fresh data dir; Overview; the Fusion form before Run; each experiment page's
# Run pressed with the defaults untouched (click-to-report time and load average printed); History.
# H200: history.sqlite3, copy-ceiling.json and traces/ copied from --h200 into a data dir at
# /tmp/h200, where the runs recorded their (absolute) artefact paths, so the copied traces are
# found (a fresh temp dir if /tmp/h200 exists); each run opened from History's "Open run" box.
# One server at a time, stopped (its process group) when done. Per shot it prints the size and
# what the DOM says: charts drawn, chart download buttons, exception boxes. See docs/screens/.

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from benchmarks import serving  # start_server, stop_server, Chromium flags

WIDTH, HEIGHT = 1400, 1000
MAX_HEIGHT = 9000  # taller pages are cut to their top part (keeps a PNG near 2 MB or less)
RUN_TIMEOUT_MS = 400_000
PAGES = {
    "fusion": "Fusion & compile",
    "streams": "Streams & events",
    "recompiles": "Shapes & recompiles",
    "allocator": "Allocator",
}
HEADLINE = "[data-testid=stAlertContentSuccess],[data-testid=stAlertContentWarning],[data-testid=stAlertContentError]"
# the charts on show: a chart in a tab not shown has no width to draw in until it is clicked
CHARTS_DRAWN = """() => [...document.querySelectorAll('[data-testid=stVegaLiteChart]')]
    .filter(c => c.offsetParent !== null)
    .every(c => [...c.querySelectorAll('canvas,svg.marks')]
        .some(e => e.getBoundingClientRect().width > 50))"""
PAGE_HEIGHT = """() => Math.max(...['stMain', 'stSidebarContent', 'stAppViewContainer']
    .map(t => document.querySelector(`[data-testid=${t}]`)).filter(Boolean)
    .map(e => e.scrollHeight), document.documentElement.scrollHeight)"""


def settle(page, timeout_ms: int = 60_000, drawn: str = CHARTS_DRAWN) -> None:
    """Wait until Streamlit is idle, no status box is left and every chart has drawn."""
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=timeout_ms)
    expect(page.get_by_role("button", name="Cancel")).to_have_count(0, timeout=timeout_ms)
    page.wait_for_timeout(1000)  # the charts' elements arrive just after the headline
    page.wait_for_function(drawn, timeout=timeout_ms)


def shoot(page, path: Path, drawn: str = CHARTS_DRAWN) -> None:
    """A full-page PNG: the viewport grows to the page (Streamlit scrolls inside its main
    element, so Playwright's full_page alone would stop at the first screen)."""
    page.mouse.move(WIDTH - 10, 10)  # off the sidebar: no hover-only collapse button
    height = min(page.evaluate(PAGE_HEIGHT), MAX_HEIGHT)
    page.set_viewport_size({"width": WIDTH, "height": max(height, HEIGHT)})
    page.wait_for_timeout(1500)
    settle(page, drawn=drawn)
    page.screenshot(path=str(path))
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    charts = page.get_by_test_id("stVegaLiteChart").count()
    labels = page.get_by_test_id("stDownloadButton").all_inner_texts()
    buttons = [t for t in labels if t.replace("download", "").strip() in ("PNG", "SVG", "CSV")]
    problems = page.locator("[data-testid=stException]").count()
    print(
        f"  {path.name}: {path.stat().st_size / 2**20:.2f} MB, {height} px, {charts} charts, "
        f"{len(buttons)} chart downloads, {problems} exception boxes",
        flush=True,
    )


@contextmanager
def served_page(data: Path, log: Path):
    """A server on `data` and one headless-Chromium page on it, ready for the worker; yields
    (page, url), then stops both."""
    proc, url = serving.start_server(str(data), log)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=serving.CHROMIUM, args=serving.CHROMIUM_ARGS
            )
            page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
            page.set_default_timeout(60_000)
            wait_worker(page, url)
            yield page, url
            browser.close()
    finally:
        serving.stop_server(proc)


def wait_worker(page, url: str, timeout_s: float = 180) -> None:
    """Reload until the sidebar says the worker is idle (the CPU-sized defaults need its
    environment; before that the sidebar says "waiting for the worker")."""
    deadline = time.monotonic() + timeout_s
    while True:
        page.goto(url)
        sidebar = page.get_by_test_id("stSidebarContent")
        expect(sidebar.get_by_text("Worker:")).to_be_visible()
        if "idle" in sidebar.inner_text() or time.monotonic() > deadline:
            return
        page.wait_for_timeout(2000)


def open_page(page, url: str, title: str) -> None:
    page.goto(url)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title).click()
    expect(page.get_by_role("heading", name=title, level=1)).to_be_visible()
    settle(page)


def cpu_shots(browser, out: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="screens-cpu-") as tmp:
        proc, url = serving.start_server(str(Path(tmp) / "data"), Path(tmp) / "server.log")
        try:
            page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
            page.set_default_timeout(60_000)
            wait_worker(page, url)
            expect(page.get_by_role("heading", name="Runtime Lab", level=1)).to_be_visible()
            expect(page.get_by_text("Device: CPU only")).to_be_visible()
            settle(page)
            shoot(page, out / "cpu-overview.png")
            for name, title in PAGES.items():
                open_page(page, url, title)
                if name == "fusion":
                    expect(page.get_by_text("Sized for this CPU")).to_be_visible()
                    shoot(page, out / "cpu-fusion-form.png")
                page.get_by_role("button", name="Run", exact=True).click()
                started = time.monotonic()
                headline = page.locator(HEADLINE).filter(has_text=re.compile(r"run #\d+"))
                expect(headline.first).to_be_visible(timeout=RUN_TIMEOUT_MS)
                took = time.monotonic() - started
                settle(page)
                load = os.getloadavg()[0]  # other work on the host slows a CPU run
                said = headline.first.inner_text()
                print(f"{title}: {took:.1f} s click to report (load {load:.1f}): {said}")
                shoot(page, out / f"cpu-{name}.png")
            open_page(page, url, "History")
            shoot(page, out / "cpu-history.png")
            page.close()
        finally:
            serving.stop_server(proc)


def h200_shots(browser, out: Path, source: Path) -> None:
    data = Path("/tmp/h200")
    if data.exists():
        data = Path(tempfile.mkdtemp(prefix="screens-h200-"))
        print(f"/tmp/h200 exists: data dir {data}; the recorded trace paths will not resolve")
    (data / "traces").mkdir(parents=True)
    try:
        for name in ("history.sqlite3", "copy-ceiling.json"):
            shutil.copyfile(source / name, data / name)  # copyfile: writable, not read-only
        for trace in (source / "traces").iterdir():
            shutil.copyfile(trace, data / "traces" / trace.name)
        proc, url = serving.start_server(str(data), data / "server.log")
        try:
            page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
            page.set_default_timeout(60_000)
            wait_worker(page, url)
            for number, name in enumerate(PAGES, start=1):
                open_page(page, url, "History")
                box = page.get_by_test_id("stSelectbox").filter(has_text="Open run")
                box.get_by_role("combobox").click()
                page.get_by_role("option", name=re.compile(rf"^#{number}: {name} ")).click()
                headline = page.locator(HEADLINE).filter(has_text=f"run #{number}")
                expect(headline.first).to_be_visible()
                settle(page)
                print(f"H200 {name}: {headline.first.inner_text()}")
                shoot(page, out / f"h200-{name}.png")
            page.close()
        finally:
            serving.stop_server(proc)
    finally:
        shutil.rmtree(data, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("cpu", "h200"))
    parser.add_argument("--out", type=Path, default=serving.REPO / "docs" / "screens")
    parser.add_argument("--h200", type=Path, default=Path("/work/.device/3/h200"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=serving.CHROMIUM, args=serving.CHROMIUM_ARGS)
        if args.only in (None, "cpu"):
            cpu_shots(browser, args.out)
        if args.only in (None, "h200"):
            h200_shots(browser, args.out, args.h200)
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
