"""A real Streamlit server on a free loopback port, and the flags headless Chromium runs with."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"  # Debian's package: scripts/setup.sh test installs it
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
START_TIMEOUT_S = 90.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def healthy(url: str) -> bool:
    """Whether Streamlit's health endpoint at `url` answers "ok"."""
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
            return response.read().decode().strip() == "ok"
    except OSError:
        return False


def start_server(data_dir: str, log_path: Path) -> tuple[subprocess.Popen, str]:
    """`streamlit run app.py` on its own data dir, in a new process group (its worker joins
    it); returns the process and its base URL once healthy, else exits with the log's tail."""
    port = free_port()
    env = {**os.environ, "RUNTIME_LAB_DATA_DIR": data_dir}
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)]
    with open(log_path, "wb") as out:
        proc = subprocess.Popen(
            command, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_TIMEOUT_S
    while not healthy(url):
        if proc.poll() is not None or time.monotonic() > deadline:
            stop_server(proc)
            raise SystemExit(f"server did not come up:\n{Path(log_path).read_text()[-3000:]}")
        time.sleep(0.5)
    return proc, url


def stop_server(proc: subprocess.Popen) -> None:
    """Stop the server, then its whole process group (the worker, if it is still there)."""
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
