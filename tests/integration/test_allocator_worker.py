"""The allocator experiment on CPU through the real worker, and through the CLI."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from vegaspec import walk as _walk

from runtime_lab.registry import build_report as build
from runtime_lab.registry import result_from_record, summary
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
SHAPES = "256x256,1024x1024,512x512,1024x1024:float16"


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    manager = JobManager(data_dir=tmp_path_factory.mktemp("allocator"), timeout_s=600)
    yield manager
    manager.close()


@pytest.fixture(scope="module")
def cpu_run(jobs):
    options = {"shapes": SHAPES, "compare_side": 128}
    spec = build_spec("allocator", "8", device="cpu", options=options)
    job = jobs.wait(jobs.submit(spec), 600)
    assert job.state == "done", job.error
    run = job.as_run()
    return run, result_from_record("allocator", run["result"])


def test_sequence_steps_in_order_with_host_rss(cpu_run):
    _, result = cpu_run
    seq = [s for s in result.steps if s.scenario == "sequence"]
    assert [(s.label, s.event) for s in seq] == [
        (label, event)
        for label in ("256x256", "1024x1024", "512x512", "1024x1024:float16")
        for event in ("computed", "after del")
    ] + [("end", "after empty_cache")]
    assert all(s.rss_bytes > 50 * 2**20 for s in seq)  # a Python process with torch loaded
    assert all(s.allocated_bytes is None and s.peak_bytes is None for s in seq)  # CPU: no cache
    assert [s.t_s for s in seq] == sorted(s.t_s for s in seq)
    assert all(s.step_ms > 0 for s in seq if s.event == "computed")


def test_cuda_only_scenarios_say_why_and_the_rest_ran(cpu_run):
    _, result = cpu_run
    assert [s.split(":")[0] for s in result.skipped] == ["empty-cache", "side-stream", "cudagraphs"]
    assert all("needs CUDA" in s for s in result.skipped)
    assert result.errors == ()
    assert result.compare.shape == (128, 128) and result.compare.eager_peak_bytes is None
    compiled = [s.label for s in result.steps if s.scenario == "compiled"]
    # the seed's compare at compare_side, then the workload once eager and once compiled per
    # distinct shape of the sequence (on CPU: no second, measured call; no peak to read)
    per_shape = ["256x256", "1024x1024", "512x512", "1024x1024:float16"]
    assert compiled == ["eager 128x128", "compile 128x128", "compiled 128x128"] + [
        f"{mode} {label}" for label in per_shape for mode in ("eager", "compile")
    ] + ["end"]
    assert [p.label for p in result.peaks] == per_shape
    assert all(p.eager_peak_bytes is None and p.compiled_peak_bytes is None for p in result.peaks)
    assert result.snapshots == () and result.trace == ()


def test_rss_is_sampled_on_the_run_axis_and_bounded(cpu_run):
    _, result = cpu_run
    assert 5 <= len(result.rss) <= 1500
    times = [r.t_s for r in result.rss]
    assert times == sorted(times) and times[0] >= 0
    last_step = result.steps[-1].t_s
    assert times[0] < last_step  # sampled while the scenarios ran, not after
    # Inductor compiles in worker processes: RSS counts them while they exist
    assert max(r.rss_bytes for r in result.rss) >= max(s.rss_bytes for s in result.steps)


def test_report_and_summary_from_the_stored_run(cpu_run):
    run, _ = cpu_run
    rep = build(run)
    head = "pointwise (rows × cols) float32 on CPU: a CPU has no caching allocator"
    assert rep.ok and rep.headline.startswith(head)
    assert [t for t, _ in rep.charts] == ["Over time", "Per step: sequence"]
    timeline = dict(rep.charts)["Over time"].to_dict()
    # one host-RSS panel per scenario that ran, each on its own time axis; no GPU series named
    blocks = timeline["vconcat"]
    assert [b["title"]["text"].split(" · ")[0] for b in blocks] == ["sequence", "compiled"]
    assert all(len(b["vconcat"]) == 1 for b in blocks)
    domains = [
        d["scale"]["domain"]
        for d in _walk(timeline)
        if isinstance(d.get("scale"), dict) and "domain" in d["scale"]
    ]
    assert ["host rss"] in domains and [
        "reserved",
        "allocated",
        "pending free",
        "host rss",
    ] not in domains
    assert any("need CUDA" in n for n in rep.notes)
    figures = summary(run)
    assert len(figures["steps"]) == 9 + 3 + 2 * 4 + 1
    assert figures["empty_cache_cost_ms"] is None  # needs CUDA, not a made-up zero
    assert figures["host_rss_peak_bytes"] > 50 * 2**20


def test_estimate_refuses_a_sequence_that_cannot_fit(jobs):
    spec = build_spec(
        "allocator",
        "8",
        device="cpu",
        options={"shapes": "8x8,100000x100000", "scenarios": "sequence"},
    )
    job = jobs.wait(jobs.submit(spec), 120)
    assert job.state == "refused"
    assert "needs about" in job.error and "available host RAM" in job.error


def test_cli_json_has_the_promised_keys(tmp_path, data_dir):
    out = tmp_path / "alloc.json"
    done = subprocess.run(
        [sys.executable, "-m", "runtime_lab", "--data-dir", str(data_dir), "run", "allocator"]
        + ["--device", "cpu", "--shapes", "128x128,512x512", "--scenarios", "sequence,side-stream"]
        + ["--json", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(out.read_text())
    keys = {"allocated_bytes", "reserved_bytes", "peak_bytes", "steps", "empty_cache_cost_ms"}
    assert keys <= set(document["summary"])
    assert [s["label"] for s in document["summary"]["steps"]] == [
        "128x128",
        "128x128",
        "512x512",
        "512x512",
        "end",
    ]
    assert document["spec"]["options"]["scenarios"] == "sequence,side-stream"
