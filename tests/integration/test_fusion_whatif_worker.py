"""The long-chain what-if through the real worker on CPU: checked, bytes model, report note."""

import pytest

from runtime_lab import registry
from runtime_lab.fusion.report import kernel_views as rk
from runtime_lab.fusion.run.experiment import SUBPROCESS_NOTE
from runtime_lab.lab.device_limits import CPU_NOTE
from runtime_lab.registry import result_from_record, summary
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

pytestmark = pytest.mark.slow  # one C++ compile of the chain: ~15 s on 2 cores

SIDE = 128


@pytest.fixture(scope="module")
def chain_run(tmp_path_factory):
    jobs = JobManager(data_dir=tmp_path_factory.mktemp("chain"), timeout_s=600)
    options = {
        "modes": "eager,inductor",
        "variant": "long-chain",
        "compile_latency": False,
        "compile_trace": False,
        "fresh_process": True,  # asked for, and skipped: it would compile the pointwise workload
    }
    try:
        spec = build_spec(
            "fusion", f"{SIDE}x{SIDE}", device="cpu", warmup=1, repeat=5, options=options
        )
        job = jobs.wait(jobs.submit(spec), 600)
    finally:
        jobs.close()
    assert job.state == "done", job.error
    return job.as_run()


def test_the_chain_is_checked_against_eager_and_float64(chain_run):
    result = result_from_record("fusion", chain_run["result"])
    assert result.variant == "long-chain"
    for mode in result.modes:
        assert mode.ran and mode.tolerance_passed, (mode.mode, mode.error)
        assert mode.rel_err_fp64 < 1e-5, mode.mode
    fused = next(m for m in result.modes if m.mode == "inductor")
    assert fused.kernel_count == 1 and "cpp_fused" in fused.kernels[0].name
    assert "cpp_fused" in fused.generated_code


def test_the_bytes_model_counts_the_op_list(chain_run):
    result = result_from_record("fusion", chain_run["result"])
    by = {m.mode: m for m in result.modes}
    n = SIDE * SIDE * 4
    # 62 eager ops, each 2 reads + 1 write: 186 transfers
    assert (by["eager"].transfers_per_element, by["eager"].bytes_moved) == (186, 186 * n)
    assert (by["inductor"].transfers_per_element, by["inductor"].bytes_moved) == (3, 3 * n)
    assert summary(chain_run)["predicted_speedup"] == pytest.approx(186 / 3)


def test_the_report_gives_the_whatif_and_what_needs_cuda(chain_run):
    result = result_from_record("fusion", chain_run["result"])
    assert result.device_limits is None and result.limits_note == CPU_NOTE
    assert SUBPROCESS_NOTE in result.notes
    assert not any(c.scenario == "fresh-process" for m in result.modes for c in m.compile)
    rep = registry.build_report(chain_run)
    assert CPU_NOTE in rep.notes and rk.TABLE_TITLE not in dict(rep.tables)
    whatif = next(n for n in rep.notes if n.startswith("Long chain"))
    assert "element transfers per output element 3 vs 186" in whatif
    assert "eager" in rep.headline and "inductor 1 kernel" in rep.headline
