"""Allocator on CUDA through the real worker: the configurations A/B (expandable segments against
the default, compile context in snapshots) and the memory outside the allocator per step."""

import pytest
from allocatordata import MIB

from runtime_lab.registry import result_from_record
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

pytestmark = pytest.mark.gpu


def test_expandable_segments_against_the_default_on_the_gpu(tmp_path):
    jobs = JobManager(data_dir=tmp_path, timeout_s=600)
    try:
        options = {"alloc_ab": True, "scenarios": "sequence,compiled"}
        spec = build_spec("allocator", "1024x1024", device="cuda", options=options)
        job = jobs.wait(jobs.submit(spec), 600)
    finally:
        jobs.close()
    assert job.state == "done", job.error
    result = result_from_record("allocator", job.as_run()["result"])
    default, expandable = result.alloc_configs
    assert default.config == "default" and not default.error and not expandable.error
    assert len(default.steps) == len(result.sequence) == len(expandable.steps)
    assert all(s.expandable_segments == 0 for s in default.steps)
    assert all(s.expandable_segments > 0 for s in expandable.steps)
    assert all(s.reserved_bytes >= s.allocated_bytes > 0 for s in default.steps + expandable.steps)
    compiled = next(s for s in result.snapshots if s.scenario == "compiled")
    assert compiled.compile_context_recorded is True
    assert compiled.compile_contexts, "no allocation named its compiled graph"


def test_memory_outside_the_allocator_on_the_gpu(tmp_path):
    jobs = JobManager(data_dir=tmp_path, timeout_s=600)
    try:
        options = {"outside": True, "scenarios": "sequence"}
        spec = build_spec("allocator", "1024x1024", device="cuda", options=options)
        job = jobs.wait(jobs.submit(spec), 600)
    finally:
        jobs.close()
    assert job.state == "done", job.error
    result = result_from_record("allocator", job.as_run()["result"])
    assert result.outside.error is None, result.outside.error
    steps = {s.step: s for s in result.outside.steps}
    context = steps["CUDA context"]
    assert context.reserved_bytes == 0
    assert context.device_used_bytes - result.outside.device_used_before_bytes > 100 * MIB
    assert steps["first cuBLAS call"].reserved_bytes > 0
