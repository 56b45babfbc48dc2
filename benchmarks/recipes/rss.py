"""A real server's RSS over N CPU runs pressed in headless Chromium (growth <= 50 MB over 100 runs)."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil

from benchmarks.harness import Bench
from benchmarks.recipe import Recipe, Settings, shape, whole
from benchmarks.serving import CHROMIUM, CHROMIUM_ARGS, start_server, stop_server

LIMIT_MB = 50.0
RUN_TIMEOUT_MS = 120_000


def rss_mb(pid: int) -> float:
    return psutil.Process(pid).memory_info().rss / 2**20


def streams_form(page, url: str, shape: str) -> None:
    """The Streams & events page with the shape, the CPU and 5 timed calls filled in."""
    page.goto(url)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Streams & events").click()
    page.get_by_test_id("stTextInput").filter(has_text="Shape").locator("input").fill(shape)
    device = page.get_by_test_id("stSelectbox").filter(has_text="Device")
    device.get_by_role("combobox").click()
    page.get_by_role("option", name="cpu", exact=True).click()
    calls = page.get_by_test_id("stNumberInput").filter(has_text="Timed calls")
    calls.locator("input").fill("5")


def press_run(page, runs: int, pid: int, started: float) -> list[dict[str, Any]]:
    """Press Run `runs` times, each time waiting for that run's own "run #k" headline."""
    from playwright.sync_api import expect

    samples = []
    for k in range(1, runs + 1):
        page.get_by_role("button", name="Run", exact=True).click()
        done = page.get_by_test_id("stAlertContentSuccess").filter(has_text=f"run #{k}")
        expect(done).to_be_visible(timeout=RUN_TIMEOUT_MS)
        if k in (1, runs) or k % 10 == 0:
            samples.append(
                {"runs": k, "rss_mb": round(rss_mb(pid), 1), "s": time.monotonic() - started}
            )
    return samples


def measure(bench: Bench, settings: Settings) -> dict[str, Any]:
    """The RSS of the server process alone (not its worker) after the first run, the baseline
    (imports and caches are warm by then), every 10 runs and after the last."""
    from playwright.sync_api import sync_playwright

    if not os.path.exists(CHROMIUM):
        bench.problem(f"{CHROMIUM} is not installed (scripts/setup.sh test installs it)")
        return {}
    runs, shape = settings.whole("runs"), settings.text("shape")
    with tempfile.TemporaryDirectory(prefix="rss-bench-") as tmp:
        proc, url = start_server(str(Path(tmp) / "data"), Path(tmp) / "server.log")
        started = time.monotonic()
        try:
            before = rss_mb(proc.pid)
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.set_default_timeout(60_000)
                streams_form(page, url, shape)
                samples = press_run(page, runs, proc.pid, started)
                browser.close()
        finally:
            stop_server(proc)
    bench.show(f"server RSS over {runs} runs of streams {shape} on the CPU", samples)
    growth = samples[-1]["rss_mb"] - samples[0]["rss_mb"]
    if growth > LIMIT_MB:
        bench.problem(f"RSS grew {growth:.1f} MB over {runs} runs (limit {LIMIT_MB:g} MB)")
    return {
        "runs": runs,
        "shape": shape,
        "rss_before_first_run_mb": round(before, 1),
        "rss_after_first_run_mb": samples[0]["rss_mb"],  # the baseline: imports and caches warm
        "rss_after_last_run_mb": samples[-1]["rss_mb"],
        "growth_mb": round(growth, 1),
        "limit_mb": LIMIT_MB,
        "within_limit": growth <= LIMIT_MB,
        "samples": samples,
    }


RECIPE = Recipe(
    name="rss",
    summary="a real server's RSS over N CPU runs pressed in headless Chromium (growth <= 50 MB)",
    measure=measure,
    devices=("cpu",),
    settings={
        "runs": whole("100", "consecutive Runs pressed", 1, 1000),
        "shape": shape("64x64", "the streams run's shape"),
    },
    replaces="scripts/rss_benchmark.py",
)
