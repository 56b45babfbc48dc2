"""Every workload of the catalog through the real worker on CPU: checked, timed, drawn; the CLI."""

import json
import subprocess
import sys

import pytest
from catalogdata import along, text

from runtime_lab import registry
from runtime_lab.registry import result_from_record, summary
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec
from runtime_lab.workloads.fit import params_text
from runtime_lab.workloads.registry import NAMES, WORKLOADS
from tests.helpers.bundledata import ROOT, cli

pytestmark = pytest.mark.slow  # a C++ compile per workload: ~2 min on 2 cores in all

OPTIONS = {"modes": "eager,inductor", "compile_latency": False, "compile_trace": False}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One fusion run per workload, in one worker: at its CPU shape with the dim it varies in use
    a quarter as long (its other dims and parameters as the picker gives them): the path through
    fusion is the point, and the back-to-back loop and clocks at full size took a third of the
    file's time (2-core CPU, summed stages: compiles 33 s, loop and clocks 16 s of 61 s)."""
    jobs = JobManager(data_dir=tmp_path_factory.mktemp("catalog"), timeout_s=600)
    found = {}
    try:
        for name in NAMES:
            work = WORKLOADS[name]
            options = OPTIONS | {"workload": name, "params": params_text(dict(work.cpu_params))}
            shape = text(along(name, 4))
            spec = build_spec("fusion", shape, device="cpu", warmup=1, repeat=5, options=options)
            found[name] = jobs.submit(spec)
        found = {name: jobs.wait(job_id, 600).as_run() for name, job_id in found.items()}
    finally:
        jobs.close()
    return found


@pytest.mark.parametrize("name", NAMES)
def test_every_workload_is_checked_timed_and_drawn(runs, name):
    run = runs[name]
    assert run["status"] == "done", run.get("error")
    result = result_from_record("fusion", run["result"])
    assert result.variant == name and result.bound == WORKLOADS[name].bound
    for mode in result.modes:
        assert mode.ran and mode.tolerance_passed, (mode.mode, mode.error)
        assert mode.timing is not None and min(mode.timing.primary_ms) > 0
    by = {m.mode: m for m in result.modes}
    assert by["eager"].bytes_moved == result.eager_bytes >= result.ideal_bytes
    assert by["inductor"].bytes_moved == result.ideal_bytes > 0
    assert result.flops_per_call > 0 and result.eager_ops
    report = registry.build_report(run)
    assert name in report.headline
    titles = [t for t, _ in report.charts]
    assert any(t.startswith("Roofline") for t in titles), titles
    assert any(n.startswith(f"What to look for ({name})") for n in report.notes)
    key = summary(run)
    assert key["workload"] == name and key["arithmetic_intensity"] > 0
    assert set(key["achieved_tflops"]) == {"eager", "inductor"}
    if WORKLOADS[name].bound == "compute":  # its ceiling is a measured matmul
        assert result.matmul_tflops and result.matmul_tflops > 0
        assert any(m.label == "best TFLOP/s" for m in report.metrics)
    else:
        assert result.matmul_tflops is None


def test_a_custom_op_is_a_fusion_barrier(runs):
    """One block, two RMSNorms: Inductor fuses the traceable one with its neighbours; around the
    custom op it can only fuse what is outside the node, and the op's own kernels run as eager's."""
    kernels = {}
    for name in ("norm_block", "norm_block_opaque"):
        by = {m.mode: m for m in result_from_record("fusion", runs[name]["result"]).modes}
        kernels[name] = (by["eager"].kernel_count, by["inductor"].kernel_count)
    traceable, opaque = kernels["norm_block"], kernels["norm_block_opaque"]
    assert traceable[1] <= 2 < opaque[1], kernels
    assert opaque[1] > traceable[1] + 2, kernels  # the norm's own ops, and the add and the gate
    ops = [
        o.op for o in result_from_record("fusion", runs["norm_block_opaque"]["result"]).eager_ops
    ]
    assert "rms_norm" in ops and "pow" not in ops, ops  # the dispatcher sees one opaque op


def test_the_block_runs_with_the_cpu_params(runs):
    result = result_from_record("fusion", runs["transformer_block"]["result"])
    assert dict(result.params) == {"heads": 4, "intermediate": 1024}


def test_the_registry_and_the_catalog_import_no_torch():
    code = (
        "import sys, runtime_lab.workloads.registry, runtime_lab.workloads.fit, runtime_lab.spec;"
        "import runtime_lab.cli.workloads; assert 'torch' not in sys.modules, 'torch'"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_cli_lists_the_catalog(tmp_path):
    done = cli(tmp_path, "workloads", "--json")
    assert done.returncode == 0, done.stderr
    listed = {w["name"]: w for w in json.loads(done.stdout)}
    assert list(listed) == list(NAMES)
    assert listed["attention"]["dims"] == ["batch", "heads", "seq", "head_dim"]
    assert listed["swiglu_mlp"]["params"] == {"intermediate": 14336}
    assert "llama3-8b-4k" in [p["name"] for p in listed["rms_norm"]["presets"]]
    text = cli(tmp_path, "workloads").stdout
    assert "cross_entropy  (memory-bound, built-in)" in text and "tokens × vocab" in text


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--workload", "attention", "--shape", "64x64"], "attention takes 4: batch × heads"),
        (["--workload", "rms_norm", "--shape", "llama-99b"], "or a preset: llama3-8b-4k"),
        (["--workload", "swiglu_mlp", "--params", "vocab=2"], "has no parameter 'vocab'"),
        (["--workload", "nope"], "'nope' is not allowed; allowed: pointwise, long-chain"),
    ],
)
def test_bad_workload_input_is_one_line_and_exit_2(tmp_path, args, said):
    done = cli(tmp_path, "run", "fusion", "--device", "cpu", *args)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert said in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "history.sqlite3").exists()  # nothing ran, nothing recorded
