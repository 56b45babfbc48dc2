"""The allocator on a catalog workload through the real CPU worker, and through the CLI."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from runtime_lab.registry import build_report, result_from_record, summary
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
SHAPES = "64x512,128x512,64x512,64x512:bfloat16"  # tokens x vocab; one repeat, one dtype change


@pytest.fixture(scope="module")
def ce_run(tmp_path_factory):
    jobs = JobManager(data_dir=tmp_path_factory.mktemp("allocator-ce"), timeout_s=600)
    options = {"workload": "cross_entropy", "shapes": SHAPES, "scenarios": "sequence,compiled"}
    try:
        job = jobs.wait(
            jobs.submit(build_spec("allocator", None, device="cpu", options=options)), 600
        )
    finally:
        jobs.close()
    assert job.state == "done", job.error
    run = job.as_run()
    return run, result_from_record("allocator", run["result"])


def test_every_step_ran_the_workload_at_its_shape(ce_run):
    _, result = ce_run
    assert (result.workload, result.dims) == ("cross_entropy", ("tokens", "vocab"))
    seq = [s.label for s in result.steps if s.scenario == "sequence" and s.event == "computed"]
    assert seq == ["64x512", "128x512", "64x512", "64x512:bfloat16"]
    assert result.errors == ()


def test_one_eager_and_one_compiled_call_per_distinct_shape(ce_run):
    _, result = ce_run
    peaks = {p.label: p for p in result.peaks}
    assert list(peaks) == ["64x512", "128x512", "64x512:bfloat16"]  # the repeat measured once
    for p in peaks.values():
        tokens, vocab = p.shape
        size = 2 if p.dtype == "bfloat16" else 4
        assert p.input_bytes == tokens * vocab * size + tokens * 8  # logits, int64 targets
        assert p.output_bytes == 4  # the mean loss, fp32 (the logits are upcast)
        assert p.eager_peak_bytes is None and p.compiled_peak_bytes is None  # CPU: none to read
        assert p.max_abs_diff is not None and p.max_abs_diff < 1e-4  # the same loss
        assert p.warm_s > 0 and p.error is None
    assert peaks["64x512"].compiles >= 1  # the first shape compiles; later ones may reuse it
    compiled = [s.label for s in result.steps if s.scenario == "compiled"]
    assert compiled[:2] == ["eager 64x512", "compile 64x512"] and compiled[-1] == "end"


def test_report_names_the_workload_and_says_what_needs_cuda(ce_run):
    run, _ = ce_run
    report = build_report(run)
    assert report.headline.startswith(
        "cross_entropy (tokens × vocab) float32 on CPU: a CPU has no caching allocator"
    )
    assert "Eager vs compiled peak" not in [t for t, _ in report.charts]  # no zeros drawn
    tables = dict(report.tables)
    table = tables["Eager vs compiled per shape (MiB; the peaks need CUDA)"]
    assert "eager_peak_MiB" not in table and (table["ideal_MiB"] > 0).all()  # no None column
    assert report.notes[0].startswith("What to look for (cross_entropy)")
    assert any(n.startswith("Eager vs compiled peak needs CUDA") for n in report.notes)
    figures = summary(run)
    assert figures["call_peak_bytes"]["128x512"]["ideal"] == 128 * 512 * 4 + 128 * 8 + 4


def test_cli_runs_a_catalog_workload(tmp_path, data_dir):
    out = tmp_path / "alloc.json"
    done = subprocess.run(
        [sys.executable, "-m", "runtime_lab", "--data-dir", str(data_dir), "run", "allocator"]
        + ["--workload", "rms_norm", "--shapes", "32x256,64x256", "--device", "cpu"]
        + ["--scenarios", "sequence", "--json", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(out.read_text())
    assert document["spec"]["options"]["workload"] == "rms_norm"
    assert document["summary"]["dims"] == ["tokens", "hidden"]
    labels = [s["label"] for s in document["summary"]["steps"] if s["event"] == "computed"]
    assert labels == ["32x256", "64x256"]


def test_cli_refuses_an_unknown_workload_in_one_line(data_dir):
    done = subprocess.run(
        [sys.executable, "-m", "runtime_lab", "--data-dir", str(data_dir), "run", "allocator"]
        + ["--workload", "nope", "--device", "cpu"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "workload: 'nope'" in done.stderr and "allowed: pointwise, " in done.stderr


def test_cli_refuses_a_sequence_entry_without_the_workloads_dims(data_dir):
    done = subprocess.run(
        [sys.executable, "-m", "runtime_lab", "--data-dir", str(data_dir), "run", "allocator"]
        + ["--workload", "attention", "--shapes", "64x64", "--device", "cpu"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "attention takes 4 per shape: batch × heads × seq × head_dim" in done.stderr
