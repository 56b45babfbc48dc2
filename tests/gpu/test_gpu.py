"""CUDA-only checks (marked `gpu`, skipped without a GPU): streams, timing, env, the seed oracle."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

pytestmark = pytest.mark.gpu
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    manager = JobManager(data_dir=tmp_path_factory.mktemp("gpu-lab"), timeout_s=300)
    yield manager
    manager.close()


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_side_stream_matmul_matches_reference_exactly(jobs, dtype):
    job = jobs.wait(
        jobs.submit(build_spec("streams", "1024x1024", dtype=dtype, device="cuda", repeat=20)), 300
    )
    assert job.state == "done", job.error
    result = job.result
    assert result["streams_supported"] and result["device"] == "cuda:0"
    assert result["max_abs_diff"] == 0.0  # same kernel, same inputs, ordered by events
    labels = [t["label"] for t in result["timings"]]
    assert labels == ["side stream + events", "default stream x @ y"]
    for timing in result["timings"]:
        assert timing["clock"] == "cuda-events" and len(timing["device_ms"]) == 20
        assert min(timing["device_ms"]) > 0 and min(timing["host_ms"]) > 0


def test_fingerprint_names_the_gpu(jobs):
    jobs.wait(jobs.submit(build_spec("selftest", "8", device="cuda")), 300)
    gpu = jobs.env["gpus"][0]
    assert gpu["name"] == torch.cuda.get_device_name(0)
    assert gpu["sm_count"] > 0 and gpu["memory_bytes"] > 0 and jobs.env["cuda_runtime"]


def test_cuda_oom_fails_cleanly_and_the_next_job_runs(jobs):
    oom = jobs.wait(
        jobs.submit(build_spec("selftest", "8", device="cuda", options={"behaviour": "oom"})), 300
    )
    assert oom.state == "failed" and oom.error.startswith("out of memory")
    ok = jobs.wait(jobs.submit(build_spec("streams", "256x256", device="cuda", repeat=5)), 300)
    assert ok.state == "done"


def test_missing_gpu_index_is_refused(jobs):
    index = torch.cuda.device_count()
    job = jobs.wait(jobs.submit(build_spec("streams", "8", device=f"cuda:{index}")), 300)
    assert job.state == "refused" and f"cuda:{index}" in job.error


def test_reference_script_shows_fusion():
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "gpu_runtime_reference.py")],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    ).stdout
    assert re.search(r"stream_event_matmul_max_abs_diff=0\.000e\+00", out)
    eager = int(re.search(r"eager_cuda_kernel_count=(\d+)", out).group(1))
    compiled = re.search(r"compiled_cuda_kernel_count=(\d+) names=(.*)", out)
    assert eager == 4
    assert int(compiled.group(1)) == 1 and "triton_poi_fused_add_mul_silu_sub_0" in compiled.group(
        2
    )


def test_fusion_kernels_on_cuda(jobs):
    chosen = "eager,inductor,dynamo-eager,cuda-graph,cuda-graph-inductor"
    options = {"compile_latency": False, "modes": chosen}
    spec = build_spec("fusion", "512x512", device="cuda", repeat=20, options=options)
    job = jobs.wait(jobs.submit(spec), 600)
    assert job.state == "done", job.error
    modes = {m["mode"]: m for m in job.result["modes"]}
    eager = [k["name"] for k in modes["eager"]["kernels"]]
    assert modes["eager"]["kernel_count"] == 4
    assert all("vectorized_elementwise_kernel" in name for name in eager)
    assert [k["name"] for k in modes["inductor"]["kernels"]] == [
        "triton_poi_fused_add_mul_silu_sub_0"
    ]
    assert modes["inductor"]["kernel_count"] == 1 and modes["inductor"]["max_abs_diff"] <= 1e-5
    assert modes["dynamo-eager"]["kernel_count"] == 4  # capture without codegen: no fusion
    assert modes["cuda-graph"]["ran"] and modes["cuda-graph"]["cuda_graph_compatible"]
    assert modes["cuda-graph-inductor"]["kernel_count"] == 1  # the fused kernel, replayed
    kernel = modes["inductor"]["kernels"][0]
    assert kernel["grid"] and kernel["block"] and kernel["registers"]
    for mode in modes.values():
        assert min(mode["timing"]["device_ms"]) > 0


def test_recompile_counts_on_cuda_with_inductor(jobs):
    spec = build_spec(
        "recompiles",
        "8",
        device="cuda",
        warmup=2,
        repeat=10,
        options={"shapes": "squares", "backend": "inductor", "graph_break": "item-branch"},
    )
    job = jobs.wait(jobs.submit(spec), 600)
    assert job.state == "done", job.error
    modes = {m["mode"]: m for m in job.result["modes"]}
    counts = {name: m["unique_graphs"] for name, m in modes.items()}
    assert counts["dynamic=False"] == 5 and counts["dynamic=None"] == 2
    assert counts["dynamic=True"] == 1 and counts["mark_dynamic"] == 1
    second = modes["dynamic=False"]["calls"][1]
    assert "expected 512, actual 1024" in second["reason"]
    assert all(c["steady_ms"] > 0 for c in modes["dynamic=True"]["calls"])
    breaks = job.result["graph_break"]
    assert breaks["unique_graphs"] == 2 and breaks["graph_breaks"] == 1
