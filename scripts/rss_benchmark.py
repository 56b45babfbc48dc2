"""RSS of a real Streamlit server over N consecutive CPU runs, driven through headless Chromium.

Starts `streamlit run app.py` on a free loopback port with a fresh data directory, opens the
Streams & events page in Chromium (Playwright, /usr/bin/chromium), and presses Run N times
(64x64, cpu, 5 timed calls), waiting each time for the run's own "run #k" headline. It samples
the resident set size of the server process alone (not its GPU worker child) after the first
run (the baseline: imports and caches are warm by then) and every 10 runs, and prints one JSON
document. The issue's bound: growth over 100 runs <= 50 MB.

    .venv/bin/python scripts/rss_benchmark.py --runs 100 [--json out.json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
LIMIT_MB = 50.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
            return response.read().decode().strip() == "ok"
    except OSError:
        return False


def start_server(data_dir: str, log_path: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {**os.environ, "RUNTIME_LAB_DATA_DIR": data_dir}
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)]
    with open(log_path, "wb") as out:
        proc = subprocess.Popen(
            command, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while not healthy(url):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"server did not come up:\n{log_path.read_text()[-3000:]}")
        time.sleep(0.5)
    return proc, url


def stop_server(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)  # the worker, if it is still there


def rss_mb(pid: int) -> float:
    return psutil.Process(pid).memory_info().rss / 2**20


def run_benchmark(runs: int, shape: str) -> dict:
    from playwright.sync_api import expect, sync_playwright

    with tempfile.TemporaryDirectory(prefix="rss-bench-") as tmp:
        proc, url = start_server(str(Path(tmp) / "data"), Path(tmp) / "server.log")
        samples: list[dict] = []
        started = time.monotonic()
        try:
            before = rss_mb(proc.pid)
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.set_default_timeout(60_000)
                page.goto(url)
                nav = page.get_by_test_id("stSidebarNav")
                nav.get_by_role("link", name="Streams & events").click()
                shape_box = page.get_by_test_id("stTextInput").filter(has_text="Shape")
                shape_box.locator("input").fill(shape)
                page.get_by_test_id("stSelectbox").filter(has_text="Device").get_by_role(
                    "combobox"
                ).click()
                page.get_by_role("option", name="cpu", exact=True).click()
                page.get_by_test_id("stNumberInput").filter(has_text="Timed calls").locator(
                    "input"
                ).fill("5")
                for k in range(1, runs + 1):
                    page.get_by_role("button", name="Run", exact=True).click()
                    done = page.get_by_test_id("stAlertContentSuccess").filter(has_text=f"run #{k}")
                    expect(done).to_be_visible(timeout=120_000)
                    if k in (1, runs) or k % 10 == 0:
                        samples.append(
                            {
                                "runs": k,
                                "rss_mb": round(rss_mb(proc.pid), 1),
                                "s": time.monotonic() - started,
                            }
                        )
                browser.close()
        finally:
            stop_server(proc)
    baseline = samples[0]["rss_mb"]
    growth = samples[-1]["rss_mb"] - baseline
    return {
        "runs": runs,
        "shape": shape,
        "rss_before_first_run_mb": round(before, 1),
        "rss_after_first_run_mb": baseline,
        "rss_after_last_run_mb": samples[-1]["rss_mb"],
        "growth_mb": round(growth, 1),
        "limit_mb": LIMIT_MB,
        "within_limit": growth <= LIMIT_MB,
        "samples": samples,
        "wall_s": round(time.monotonic() - started, 1),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"{psutil.virtual_memory().total / 2**30:.0f} GiB, {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d"),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--shape", default="64x64")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    figures = run_benchmark(args.runs, args.shape)
    text = json.dumps(figures, indent=2)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n")
    return 0 if figures["within_limit"] else 1


if __name__ == "__main__":
    sys.exit(main())
