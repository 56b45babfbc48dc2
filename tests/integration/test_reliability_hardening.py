"""Server hardening and resource bounds (issue 7.6, 7.7): config, no code from input, bounded
chart data. The RSS figure over 100 runs is `python -m benchmarks rss` (docs/reliability.md)."""

from __future__ import annotations

import ast
import json
import pickle
import subprocess
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path

import pandas as pd
import pytest

from runtime_lab.results import Timing
from runtime_lab.spec import REPEAT_RANGE
from runtime_lab.view import charts, frames

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / ".streamlit" / "config.toml"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
# every module that runs in the server or the worker
SOURCES = sorted(
    [*(ROOT / "runtime_lab").rglob("*.py"), *(ROOT / "app_pages").glob("*.py"), ROOT / "app.py"]
)
# calls that turn data into code or arbitrary objects, or hand it to a shell
# (writing a pickle, as the allocator's snapshot export does, runs nothing; reading one can)
BUILTINS = {"eval", "exec", "compile", "__import__"}
UNPICKLERS = {"pickle", "marshal", "dill", "cloudpickle", "joblib", "shelve"}
NAMED = {("os", "system"), ("os", "popen"), ("yaml", "load"), ("torch", "load")}
NAMED |= {(m, f) for m in UNPICKLERS for f in ("load", "loads", "Unpickler", "open")}
# (file, function) where a dynamic import is fine: the module name comes from a fixed table
# the catalog's own packages; and the user's workload files, named on the command line or in the
# server's environment (never by a link or a bundle), imported by workers and the describe child
ALLOWED_IMPORTS = {("registry.py", "_stage"), ("user.py", "_import")}


def test_config_binds_loopback_with_xsrf_on_and_no_usage_stats():
    config = tomllib.loads(CONFIG.read_text())
    assert config["server"]["address"] in LOOPBACK
    assert config["server"]["enableXsrfProtection"] is True
    assert config["browser"]["gatherUsageStats"] is False
    assert config["client"]["showErrorDetails"] in ("none", False)  # no tracebacks to browsers
    assert config["server"]["maxUploadSize"] <= 20  # MB, should an upload ever appear


def test_streamlit_reads_the_same_settings():
    shown = subprocess.run(
        [sys.executable, "-m", "streamlit", "config", "show"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    effective = dict(
        line.split(" = ", 1) for line in shown.splitlines() if " = " in line and line[:1].isalpha()
    )
    assert effective["address"].strip('"') in LOOPBACK
    assert effective["enableXsrfProtection"] == "true"
    assert effective["gatherUsageStats"] == "false"


def test_readme_says_loopback_by_default_and_how_to_expose_it():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Serving safely", 1)[1].split("\n## ", 1)[0]
    assert "127.0.0.1" in section and "--server.address" in section
    assert "no login" in section and "XSRF" in section and "trusted network" in section


def _calls(path: Path):
    """(innermost function, called name, owner name or None, node) for every call in a file."""

    def visit(node, function):
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, ast.FunctionDef) else function
            if isinstance(child, ast.Call):
                name = getattr(child.func, "attr", None) or getattr(child.func, "id", None)
                owner = getattr(getattr(child.func, "value", None), "id", None)
                yield inner, name, owner, child
            yield from visit(child, inner)

    yield from visit(ast.parse(path.read_text(), filename=str(path)), "<module>")


def test_no_input_is_evaluated_as_code():
    """No eval/exec/pickle/shell in the server or worker; imports only from fixed tables."""
    found = []
    for path in SOURCES:
        for function, name, owner, node in _calls(path):
            where = f"{path.relative_to(ROOT)}:{node.lineno} in {function}"
            if (owner is None and name in BUILTINS) or (owner, name) in NAMED:
                found.append(f"{where}: {owner}.{name}" if owner else f"{where}: {name}")
            if name == "import_module" and (path.name, function) not in ALLOWED_IMPORTS:
                found.append(f"{where}: import_module")
            if any(k.arg == "shell" for k in node.keywords):
                found.append(f"{where}: shell=")
    assert not found, found
    # the only upload is the bundle import: size-limited, parsed as JSON and validated
    uploads = [p.relative_to(ROOT) for p in SOURCES if "file_uploader" in p.read_text()]
    assert [str(p) for p in uploads] == ["runtime_lab/ui/bundles.py"], uploads
    source = (ROOT / "runtime_lab/ui/bundles.py").read_text()
    assert "bundle.import_bytes(" in source and "import pickle" not in source


def test_the_worker_pipe_is_json_only(data_dir, tmp_path):
    """Bytes that are not JSON (a pickle that would run code) are ignored, never unpickled."""
    from runtime_lab.runner.jobs import JobManager
    from runtime_lab.spec import build_spec

    marker = tmp_path / "pwned"

    class Payload:
        def __reduce__(self):
            return (Path.touch, (marker,))

    jobs = JobManager(data_dir=data_dir, timeout_s=60)
    try:
        deadline = time.monotonic() + 120
        while jobs._worker is None and time.monotonic() < deadline:
            time.sleep(0.1)
        jobs._worker.conn.send_bytes(pickle.dumps(Payload()))
        jobs._worker.conn.send_bytes(json.dumps([1, 2]).encode())  # JSON, but not a message
        job = jobs.wait(jobs.submit(build_spec("selftest", "8", device="cpu")), 120)
        assert job.state == "done" and jobs.status()["restarts"] == 0
        assert not marker.exists()
    finally:
        jobs.close()


def _timing(n, label="x @ y"):
    return Timing(
        label=label,
        clock="host-wall",
        device_ms=(),
        host_ms=tuple(1.0 + (i % 97) / 100 for i in range(n - 1)) + (50.0,),
        first_call_ms=3.0,
        warmup=0,
        repeat=n,
        l2_flush=False,
    )


def test_long_sample_series_are_downsampled_for_charts_only():
    timings = [_timing(10_000), _timing(10_000, "default"), _timing(300, "short")]
    samples = frames.timing_samples(timings)
    shown = frames.downsample(samples, ["label", "clock"], "time_ms")
    per_series = shown.groupby("label").size().to_dict()
    cap = frames.MAX_CHART_POINTS
    assert cap - 2 <= per_series["x @ y"] <= cap and cap - 2 <= per_series["default"] <= cap
    assert per_series["short"] == 300
    kept = shown[shown.label == "x @ y"]
    assert kept.time_ms.max() == 50.0 and kept.time_ms.min() == 1.0  # the extremes survive
    assert kept["sample"].iloc[0] == 0 and kept["sample"].iloc[-1] == 9_999
    summary = frames.timing_summary(timings)
    assert summary.set_index("label").loc["x @ y", "count"] == 10_000  # stats from raw samples
    spec = charts.timing_chart(samples, summary).to_dict()
    rows = sum(len(v) for v in spec["datasets"].values())
    assert rows < 4_500 < len(samples)
    assert f"{len(shown):,} of 20,300 samples drawn" in json.dumps(spec)


def test_short_series_are_untouched():
    samples = frames.timing_samples([_timing(50)])
    assert frames.downsample(samples, ["label", "clock"], "time_ms") is samples
    assert frames.downsample(pd.DataFrame(), ["label"], "time_ms").empty


def test_a_maximal_timing_stays_a_bounded_record():
    """The largest timing a spec allows (repeat 10000, two clocks) is a few hundred KiB of JSON."""
    big = replace(_timing(REPEAT_RANGE[1]), device_ms=_timing(REPEAT_RANGE[1]).host_ms)
    size = len(json.dumps(asdict(big)))
    assert 100_000 < size < 1_000_000
