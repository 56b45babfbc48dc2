"""Kernel resources on a real GPU: every profiled kernel has registers and an occupancy."""

import pytest

from runtime_lab.fusion.report import kernel_table as fk
from runtime_lab.registry import result_from_record
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

pytestmark = [pytest.mark.gpu, pytest.mark.slow]

MODES = "eager,inductor,inductor-max-autotune-no-cudagraphs"


@pytest.fixture(scope="module", params=[("pointwise", "256x256"), ("long-chain", "4096x4096")])
def gpu_run(request, tmp_path_factory):
    variant, shape = request.param
    jobs = JobManager(data_dir=tmp_path_factory.mktemp("kernels-gpu"), timeout_s=900)
    options = {"modes": MODES, "variant": variant, "compile_latency": False, "compile_trace": False}
    try:
        job = jobs.wait(
            jobs.submit(build_spec("fusion", shape, device="cuda", options=options)), 900
        )
    finally:
        jobs.close()
    assert job.state == "done", job.error
    return result_from_record("fusion", job.as_run()["result"])


def test_every_kernel_has_registers_an_occupancy_and_its_limit(gpu_run):
    limits = gpu_run.device_limits
    assert limits is not None and limits.sm_count > 0
    assert {"registers_per_sm", "smem_per_sm_bytes", "max_threads_per_sm"} <= set(limits.reported)
    frame = fk.resources_frame(gpu_run)
    assert set(frame["mode"]) == set(MODES.split(","))
    for row in frame.itertuples():
        assert row.registers_per_thread > 0, row
        assert 0 < row.occupancy_pct <= 100, row
        assert row.limiting_resource, row
        assert row.profiler_occupancy_pct is not None, row


def test_compiled_modes_carry_their_triton_kernels(gpu_run):
    for mode in (m for m in gpu_run.modes if m.mode.startswith("inductor")):
        assert mode.triton_kernels, (mode.mode, mode.triton_note)
        assert all(k.registers and k.num_warps and k.config for k in mode.triton_kernels)
        assert mode.kernel_count == 1 and mode.kernels[0].bytes_per_launch == mode.bytes_moved
    eager = next(m for m in gpu_run.modes if m.mode == "eager")
    assert all(k.bytes_per_launch for k in eager.kernels), [k.name for k in eager.kernels]
