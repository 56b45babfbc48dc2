"""The Ray backend in a browser: a local Ray head whose custom resources stand in for two GPU
types, the app pointed at it, "Run on: one GPU of each type", and the compare view it opens.

# .venv/bin/python -m scripts.cluster_screens [--out docs/screens]
Starts `ray start --head` (stopped after), a server with RUNTIME_LAB_RAY_ADDRESS=auto on a fresh
data dir, and headless Chromium; prints what the sidebar and the compare view say.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from benchmarks import serving  # start_server, stop_server, Chromium flags
from scripts import screens  # settle, shoot, sizes

REPO = serving.REPO
RAY = str(Path(sys.executable).parent / "ray")
TYPES = {"runtime_lab_gpu:demo-a": 1, "runtime_lab_gpu:demo-b": 1}


def ray_head() -> None:
    # the actors import the checkout: on a node of a real cluster, the installed package
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [RAY, "start", "--head", "--num-cpus", "2", "--include-dashboard", "false"]
    subprocess.run([*command, "--resources", json.dumps(TYPES)], check=True, env=env)


def run_each_type(page, url: str, out: Path) -> None:
    page.goto(url)
    sidebar = page.get_by_test_id("stSidebarContent")
    deadline = time.monotonic() + 240
    while sidebar.inner_text().count(" idle ") < 3 and time.monotonic() < deadline:
        page.wait_for_timeout(2000)
        page.reload()
    lines = [x for x in sidebar.inner_text().splitlines() if "Worker" in x or "Device" in x]
    print("sidebar:", " | ".join(lines))
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Streams & events").click()
    expect(page.get_by_role("heading", name="Streams & events", level=1)).to_be_visible()
    screens.settle(page)
    box = page.get_by_test_id("stSelectbox").filter(has_text="Run on")
    box.locator("input").click()  # open the list: the page's choices, shown
    page.wait_for_timeout(800)
    page.screenshot(path=str(out / "cluster-run-on.png"))
    print("choices:", page.get_by_role("option").all_inner_texts())
    page.get_by_role("option", name="one GPU of each type (then compare)").click()
    page.get_by_role("button", name="Run", exact=True).click()
    started = time.monotonic()
    heading = page.get_by_role("heading", name="Comparing streams runs")
    expect(heading).to_be_visible(timeout=400_000)
    print(f"compare view after {time.monotonic() - started:.1f} s: {heading.inner_text()}")
    screens.shoot(page, out / "cluster-compare.png")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(REPO / "docs" / "screens"))
    out = Path(parser.parse_args().out)
    ray_head()
    try:
        with tempfile.TemporaryDirectory(prefix="screens-cluster-") as tmp:
            os.environ["RUNTIME_LAB_RAY_ADDRESS"] = "auto"
            proc, url = serving.start_server(str(Path(tmp) / "data"), Path(tmp) / "server.log")
            try:
                with sync_playwright() as pw:
                    browser = pw.chromium.launch(
                        executable_path=serving.CHROMIUM, args=serving.CHROMIUM_ARGS
                    )
                    page = browser.new_page(viewport={"width": screens.WIDTH, "height": 1000})
                    page.set_default_timeout(60_000)
                    run_each_type(page, url, out)
                    browser.close()
            finally:
                serving.stop_server(proc)
    finally:
        subprocess.run([RAY, "stop", "--force"], check=False, capture_output=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
