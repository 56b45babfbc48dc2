"""The allocator's must-show facts on a GPU (marked `gpu`: skipped without CUDA)."""

import subprocess
import sys
from pathlib import Path

import pytest

from runtime_lab.registry import result_from_record, summary
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

pytestmark = pytest.mark.gpu
MIB = 2**20


@pytest.fixture(scope="module")
def gpu_run(tmp_path_factory):
    manager = JobManager(data_dir=tmp_path_factory.mktemp("alloc-gpu"), timeout_s=600)
    spec = build_spec("allocator", "8", device="cuda", options={"compare_side": 8192})
    job = manager.wait(manager.submit(spec), 600)
    manager.close()
    assert job.state == "done", job.error
    run = job.as_run()
    return run, result_from_record("allocator", run["result"])


def _steps(result, scenario):
    return [s for s in result.steps if s.scenario == scenario]


def test_after_del_allocated_drops_while_reserved_stays(gpu_run):
    _, result = gpu_run
    seq = _steps(result, "sequence")
    pairs = [(a, b) for a, b in zip(seq, seq[1:], strict=False) if b.event == "after del"]
    assert len(pairs) == 6
    for computed, deleted in pairs:
        assert deleted.allocated_bytes < computed.allocated_bytes
        assert deleted.reserved_bytes == computed.reserved_bytes > deleted.allocated_bytes
    assert pairs[3][0].peak_bytes >= 5 * 256 * MIB  # 8192² fp32: x, y and three eager temporaries


def test_after_empty_cache_reserved_drops(gpu_run):
    _, result = gpu_run
    seq = _steps(result, "sequence")
    assert seq[-1].event == "after empty_cache"
    assert seq[-1].reserved_bytes < seq[-2].reserved_bytes
    assert seq[-1].allocated_bytes == seq[-2].allocated_bytes  # it freed no tensor


def test_eager_peak_above_compiled_at_8192_fp32(gpu_run):
    _, result = gpu_run
    c = result.compare
    assert c.shape == (8192, 8192)
    assert c.eager_peak_bytes > c.compiled_peak_bytes > 0
    assert c.compiled_peak_bytes >= 256 * MIB  # the output itself


def test_empty_cache_costs_time_and_the_side_stream_race(gpu_run):
    run, result = gpu_run
    figures = summary(run)
    assert figures["empty_cache_cost_ms"] > 0
    assert result.empty_cache.every_reserved_bytes < result.empty_cache.never_reserved_bytes
    s = result.side_stream
    assert s.reused_without_record and not s.reused_with_record
    assert s.free_lag_us > 0
    g = result.graphs
    assert g.private_pool_bytes > 0
    assert g.reserved_after_del_bytes > g.reserved_after_reset_bytes


def test_memory_back_to_baseline_and_a_snapshot_per_scenario(gpu_run):
    _, result = gpu_run
    assert result.final_allocated_bytes == result.baseline_allocated_bytes
    assert result.num_ooms == 0
    assert {s.scenario for s in result.snapshots} == {
        "sequence",
        "compiled",
        "empty-cache",
        "side-stream",
        "cudagraphs",
    }


def test_exported_snapshot_loads_with_memory_viz(gpu_run):
    _, result = gpu_run
    seq = next(s for s in result.snapshots if s.scenario == "sequence")
    assert Path(seq.file).is_file() and seq.entries > 0
    done = subprocess.run(
        [sys.executable, "-m", "torch.cuda._memory_viz", "stats", seq.file],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()


def test_snapshot_before_empty_cache_has_the_segments_for_the_viewer(gpu_run):
    _, result = gpu_run
    seq = next(s for s in result.snapshots if s.scenario == "sequence")
    assert Path(seq.segments_file).is_file()
    done = subprocess.run(
        [sys.executable, "-m", "torch.cuda._memory_viz", "stats", seq.segments_file],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    # the end snapshot follows the final empty_cache(): 0 segments; this one still holds them
    segments = int(done.stdout.split("segments: ")[1].split()[0])
    assert segments > 0 and seq.segments == 0
