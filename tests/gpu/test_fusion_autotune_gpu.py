"""Max-autotune's choices on a real GPU: swiglu_mlp in bf16 records the GEMMs Inductor autotuned,
each with its candidates, one winner, positive times and a cuBLAS (extern) choice (one job,
meant to end within a minute; not yet timed on a GPU)."""

import re

import pytest

from runtime_lab.fusion.report import autotune as ra
from runtime_lab.fusion.report.figures import key_figures
from runtime_lab.registry import result_from_record
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

pytestmark = [pytest.mark.gpu, pytest.mark.slow]

TUNED = "inductor-max-autotune-no-cudagraphs"


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    # a fresh data directory: its Inductor cache is empty, so the choices are benchmarked here
    jobs = JobManager(data_dir=tmp_path_factory.mktemp("autotune-gpu"), timeout_s=600)
    options = {
        "modes": f"eager,{TUNED}",
        "workload": "swiglu_mlp",
        "params": "intermediate=2048",
        "compile_latency": False,
        "compile_trace": False,
    }
    spec = build_spec(
        "fusion", "1024x1024", "bfloat16", "cuda", warmup=3, repeat=10, options=options
    )
    try:
        job = jobs.wait(jobs.submit(spec), 600)
    finally:
        jobs.close()
    assert job.state == "done", job.error
    result = result_from_record("fusion", job.as_run()["result"])
    return next(m for m in result.modes if m.mode == TUNED), result


def test_the_gemms_inductor_autotuned_are_recorded_with_one_winner_each(tuned):
    mode, _ = tuned
    assert mode.autotune is not None and mode.autotune.ops, mode.autotune
    assert any(len(op.choices) > 1 for op in mode.autotune.ops)
    for op in mode.autotune.ops:
        assert re.fullmatch(r"\w+\(\d.*\)", op.op), op.op  # e.g. mm(1024x1024, 1024x2048)
        assert sum(c.winner for c in op.choices) == 1, op
        timed = [c.time_ms for c in op.choices if c.time_ms is not None]
        assert timed and all(t > 0 for t in timed), op
        winner = next(c for c in op.choices if c.winner)
        assert winner.time_ms == min(timed)
    kinds = {c.kind for op in mode.autotune.ops for c in op.choices}
    assert {"extern", "triton"} <= kinds, kinds
    assert any(op.benchmarked and op.autotune_s and op.autotune_s > 0 for op in mode.autotune.ops)


def test_the_report_and_the_json_carry_the_choices(tuned):
    _, result = tuned
    views = ra.views(result)
    assert [title for title, _ in views.tables] == [ra.OPS_TITLE, ra.CHOICES_TITLE]
    figures = key_figures(result)
    assert figures["autotune"] and all(op["choices"] for op in figures["autotune"])
    assert any(row["triton_vs_extern"] for row in figures["autotune"])
