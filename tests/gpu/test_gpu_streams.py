"""Streams on CUDA (marked `gpu`): every ordering, races made visible, lanes, overlap, host."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec
from runtime_lab.streams.info import STREAM_VARIANTS
from runtime_lab.streams.result import HIDDEN_DEPENDENCY_LABEL
from runtime_lab.streams.run import trace as streamtrace

pytestmark = pytest.mark.gpu
ROOT = Path(__file__).resolve().parents[2]
BROKEN = [name for name, (_, ordered) in STREAM_VARIANTS.items() if not ordered]
ORDERED = [name for name, (_, ordered) in STREAM_VARIANTS.items() if ordered]


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    manager = JobManager(data_dir=tmp_path_factory.mktemp("gpu-streams"), timeout_s=600)
    options = {"trials": 12, "delay_us": 2000, "overlap_kernels": 8}
    spec = build_spec("streams", "4096x4096", device="cuda", repeat=20, options=options)
    job = manager.wait(manager.submit(spec), 600)
    manager.close()
    assert job.state == "done", job.error
    return job.result


def _variant(result, name):
    return next(v for v in result["variants"] if v["variant"] == name)


@pytest.mark.parametrize("name", ORDERED)
def test_ordered_variants_are_exact_in_every_trial(result, name):
    v = _variant(result, name)
    assert v["trials"] == 12 and len(v["diffs"]) == 12
    assert v["mismatches"] == 0 and max(v["diffs"]) == 0.0  # same kernel, same inputs
    assert min(v["device_ms"]) > 0


@pytest.mark.parametrize("name", BROKEN)
def test_broken_variants_give_wrong_results_with_a_slow_producer(result, name):
    v = _variant(result, name)
    assert v["mismatches"] >= 1, f"{name}: no race seen in {v['trials']} trials"
    assert max(v["diffs"]) > 0.1 or v["nonfinite_trials"] > 0


def test_early_free_hands_the_block_to_a_new_tensor_unless_record_stream(result):
    assert _variant(result, "early-free")["reused_block"] >= 1
    assert _variant(result, "early-free-record-stream")["reused_block"] == 0


def test_correct_timeline_puts_matmul_on_side_and_consumer_after_it(result):
    kernels = _variant(result, "correct")["timeline"]["kernels"]
    gemm = [k for k in kernels if k["lane"] == "side" and "gemm" in k["name"].lower()]
    assert gemm, [(k["lane"], k["name"]) for k in kernels]
    later = [k for k in kernels if k["lane"] == "default" and k["start_us"] > gemm[0]["start_us"]]
    assert later and min(k["start_us"] for k in later) >= gemm[-1]["end_us"]
    lanes = dict(_variant(result, "correct")["timeline"]["lane_streams"])
    assert lanes["default"] != lanes["side"]


def test_missing_producer_wait_timeline_shows_the_race(result):
    kernels = _variant(result, "missing-producer-wait")["timeline"]["kernels"]
    gemm = next(k for k in kernels if k["lane"] == "side" and "gemm" in k["name"].lower())
    spin = next(k for k in kernels if k["lane"] == "default" and "spin" in k["name"])
    assert gemm["start_us"] < spin["end_us"]  # the matmul ran while the producer was spinning


def test_overlap_small_kernels_overlap_more_than_gpu_filling(result):
    cases = {c["label"]: c for c in result["overlap"]}
    small, big = cases["small kernels"], cases["GPU-filling"]
    assert small["overlap_pct"] > 20 and small["overlap_pct"] > big["overlap_pct"]
    assert min(small["concurrent_ms"]) > 0 and min(big["serial_ms"]) > 0


@pytest.fixture(scope="module")
def default_overlap(tmp_path_factory):
    """A run with the overlap options at their defaults (512², 16 matmuls per stream)."""
    manager = JobManager(data_dir=tmp_path_factory.mktemp("gpu-overlap"), timeout_s=600)
    options = {"variant": "correct", "trials": 2}
    spec = build_spec("streams", "4096x4096", device="cuda", repeat=20, options=options)
    job = manager.wait(manager.submit(spec), 600)
    manager.close()
    assert job.state == "done", job.error
    return {c["label"]: c for c in job.result["overlap"]}


def _median(values):
    return sorted(values)[len(values) // 2]


@pytest.mark.parametrize("which", ["default sizes", "8 kernels"])
def test_default_stream_op_between_serialises_the_two_streams(default_overlap, result, which):
    cases = (
        default_overlap if which == "default sizes" else {c["label"]: c for c in result["overlap"]}
    )
    labels = list(cases)
    assert labels == ["small kernels", HIDDEN_DEPENDENCY_LABEL, "GPU-filling"]
    small, hidden = cases["small kernels"], cases[HIDDEN_DEPENDENCY_LABEL]
    assert hidden["hidden_dependency"] and not small["hidden_dependency"]
    assert (
        hidden["size"] == small["size"]
        and hidden["kernels_per_stream"] == small["kernels_per_stream"]
    )
    assert small["overlap_pct"] > 20
    # the same chains, the same streams: only the default-stream op and the waits differ
    assert hidden["overlap_pct"] < 0.5 * small["overlap_pct"]
    assert small["overlap_pct"] - hidden["overlap_pct"] > 15
    assert _median(hidden["concurrent_ms"]) > _median(small["concurrent_ms"])
    lanes = {k["lane"] for k in hidden["timeline"]["kernels"]}
    assert {"a", "b", "default"} <= lanes
    assert hidden["serial_timeline"] is None and small["serial_timeline"] is not None


def test_host_blocks_on_synchronize_not_on_wait_event(result):
    by = {b["call"]: b for b in result["host_blocking"]}
    wait = sorted(by["stream.wait_event(done)"]["host_us"])
    sync = sorted(by["done.synchronize()"]["host_us"])
    assert wait[len(wait) // 2] < 200  # µs: only enqueued
    assert sync[len(sync) // 2] > 0.5 * 2000  # waits for the 2 ms spin


def test_event_timing_and_trace(result):
    assert len(result["event_ms"]) == 20 and min(result["event_ms"]) > 0
    events = streamtrace.load(result["trace_file"])
    names = [name for name, _, _ in streamtrace.sections(events)]
    assert [n for n in names if n.startswith("variant:")] == [
        f"variant:{v}" for v in STREAM_VARIANTS
    ]


def test_cli_keys(tmp_path):
    out = tmp_path / "run.json"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "runtime_lab",
            "--data-dir",
            str(tmp_path),
            "run",
            "streams",
            "--device",
            "cuda",
            "--shape",
            "1024x1024",
            "--variant",
            "missing-producer-wait",
            "--trials",
            "20",
            "--json",
            str(out),
        ],
        check=True,
        cwd=ROOT,
        timeout=600,
    )
    summary = json.loads(out.read_text())["summary"]
    assert summary["trials"] == 20 and summary["mismatches"] >= 1
    assert {"max_abs_diff", "mismatches", "trials", "lanes", "overlap_pct"} <= set(summary)
    assert set(summary["lanes"]) == {"default", "side"}
    hidden = summary["overlap_hidden_dependency_pct"]
    assert hidden == summary["overlap_pct"][HIDDEN_DEPENDENCY_LABEL]
    assert hidden < summary["overlap_pct"]["small kernels"]
