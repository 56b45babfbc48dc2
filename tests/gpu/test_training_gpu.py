"""The training step on a real GPU (issue 39): rms_norm bf16 in fwd_bwd, eager vs inductor,
each pass's kernels from the profiler (launches joined to the pass that issued them), the
compiled backward fused into fewer kernels than eager's autograd ops; bwd times the backward of
a retained graph (~60 s)."""

import pytest

from runtime_lab.registry import result_from_record
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

pytestmark = [pytest.mark.gpu, pytest.mark.slow]


@pytest.fixture(scope="module")
def steps(tmp_path_factory):
    jobs = JobManager(data_dir=tmp_path_factory.mktemp("training-gpu"), timeout_s=600)
    found = {}
    try:
        for step in ("fwd_bwd", "bwd"):
            options = {
                "modes": "eager,inductor",
                "workload": "rms_norm",
                "pass": step,
                "compile_latency": False,
                "compile_trace": False,
            }
            spec = build_spec(
                "fusion", "2048x4096", "bfloat16", "cuda", warmup=5, repeat=20, options=options
            )
            job = jobs.wait(jobs.submit(spec), 600)
            assert job.state == "done", job.error
            result = result_from_record("fusion", job.as_run()["result"])
            found[step] = (result, {m.mode: m for m in result.modes})
    finally:
        jobs.close()
    return found


def test_fwd_bwd_counts_each_pass_s_kernels_and_inductor_fuses_the_backward(steps):
    result, modes = steps["fwd_bwd"]
    assert result.training_pass == "fwd_bwd"
    for mode in modes.values():
        assert mode.ran and mode.timing is not None, mode.error
        assert mode.forward_kernels > 0 and mode.backward_kernels > 0, mode.mode
        assert mode.grad_tolerance_passed, (mode.mode, mode.grad_max_abs_diff_fp64)
        # every profiled kernel belongs to one pass: none launched outside the step's ranges
        assert mode.forward_kernels + mode.backward_kernels == pytest.approx(mode.kernel_count)
    assert modes["inductor"].backward_kernels < modes["eager"].backward_kernels
    assert any("triton" in k.name for k in modes["inductor"].backward_kernel_rows)


def test_bwd_times_the_backward_alone(steps):
    result, modes = steps["bwd"]
    assert result.training_pass == "bwd"
    for mode in modes.values():
        assert mode.ran and mode.timing is not None, mode.error
        assert mode.forward_kernels is None and mode.backward_kernels > 0, mode.mode
        assert mode.backward_kernels == pytest.approx(mode.kernel_count)
    assert modes["inductor"].backward_kernels < modes["eager"].backward_kernels


def test_each_gradient_is_judged_over_its_own_reductions_and_saved_tensors_are_counted(steps):
    for step in ("fwd_bwd", "bwd"):
        _, modes = steps[step]
        for mode in modes.values():
            checks = {c.name: c for c in mode.grad_checks}
            assert set(checks) == {"x", "w"}, mode.mode
            assert checks["w"].reduction_lengths == (4096, 2048)  # hidden, then the tokens
            assert all(c.tolerance_passed for c in checks.values()), (mode.mode, checks)
            assert mode.saved is not None and mode.saved.tensors > 0, mode.mode
        # AOTAutograd's partitioner keeps less than eager's autograd nodes (rstd, not x·rstd)
        eager, inductor = modes["eager"].saved, modes["inductor"].saved
        assert inductor.activation_bytes < eager.activation_bytes, (eager, inductor)


def test_each_timed_phase_carries_the_gpu_clock_where_nvml_reads_it(steps):
    pytest.importorskip("pynvml")
    _, modes = steps["fwd_bwd"]
    for mode in modes.values():
        gpu = mode.timing.gpu
        assert gpu is not None and gpu.median_clock_mhz > 100, (mode.mode, gpu)
        assert gpu.sm_clock_max_mhz >= gpu.median_clock_mhz * 0.9, gpu
        bench = next(c for c in mode.clocks if c.clock == "triton.do_bench")
        assert bench.gpu is not None and bench.gpu.median_clock_mhz > 100, bench
