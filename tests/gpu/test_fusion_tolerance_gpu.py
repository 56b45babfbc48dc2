"""Issue 41 on a GPU: the Llama-3-8B MLP and Transformer block in bf16, compiled, are within their
float64 bound with room to spare and timed (the MLP was "not timed" under the elementwise rule)."""

import pytest

from runtime_lab import registry
from runtime_lab.registry import result_from_record
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

pytestmark = [pytest.mark.gpu, pytest.mark.slow]

OPTIONS = {"modes": "eager,inductor", "compile_latency": False, "compile_trace": False}
PRESETS = {"swiglu_mlp": "llama3-8b-4k", "transformer_block": "llama3-8b-2k"}
WORKLOADS = tuple(PRESETS)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    jobs = JobManager(data_dir=tmp_path_factory.mktemp("tolerance-gpu"), timeout_s=900)
    try:
        submitted = {
            name: jobs.submit(
                build_spec(
                    "fusion",
                    PRESETS[name],
                    dtype="bfloat16",
                    device="cuda",
                    repeat=20,
                    options=OPTIONS | {"workload": name},
                )
            )
            for name in WORKLOADS
        }
        return {name: jobs.wait(job_id, 900).as_run() for name, job_id in submitted.items()}
    finally:
        jobs.close()


@pytest.mark.parametrize("name", WORKLOADS)
def test_a_bf16_llama_preset_passes_its_float64_bound_and_is_timed(runs, name):
    run = runs[name]
    assert run["status"] == "done", run.get("error")
    result = result_from_record("fusion", run["result"])
    for mode in result.modes:
        assert mode.ran and mode.timing is not None, (mode.mode, mode.error)
        assert mode.tolerance_passed and mode.tolerance_rule == "float64 bound", mode.mode
        # the margin docs/measurement.md claims: a correct answer uses at most half its bound
        assert mode.max_abs_diff_fp64 <= mode.allowed_err_fp64 / 2, (
            mode.mode,
            mode.max_abs_diff_fp64,
            mode.allowed_err_fp64,
        )
    assert result.reduction_lengths[-1] == 14336  # the down projection's K
    report = registry.build_report(run)
    assert "tolerance" not in report.headline and report.ok
