"""The training step's pass (issue 39) end to end: each page offers it and submits it; the CLI
runs rms_norm's forward and backward and records each pass's kernels per mode."""

from __future__ import annotations

import json

import fusiondata
import pytest
from apphelpers import open_page, widget
from streamlit.testing.v1 import AppTest

from runtime_lab import ui
from runtime_lab.cli.main import EXIT_OK, main
from runtime_lab.passes import PASSES

PAGES = {
    "fusion": "app_pages/fusion.py",
    "recompiles": "app_pages/recompiles.py",
    "allocator": "app_pages/allocator.py",
}


@pytest.mark.parametrize("experiment", PAGES)
def test_each_page_offers_the_pass_and_submits_it(app, experiment):
    at = open_page(app, PAGES[experiment])
    choice = widget(at.selectbox, "pass")
    assert tuple(choice.options) == PASSES and choice.value == "fwd"
    widget(at.selectbox, "Workload").set_value("rms_norm").run()
    widget(at.selectbox, "pass").set_value("fwd_bwd")
    widget(at.selectbox, "Device").set_value("cpu")
    at.button[0].click()
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.query_params["pass"] == "fwd_bwd"  # the link carries it
    job = ui.manager().get(at.session_state[f"job:{experiment}"])
    assert job.spec.option("pass") == "fwd_bwd" and job.spec.option("workload") == "rms_norm"


def test_the_cli_records_forward_and_backward_kernels_per_mode(tmp_path):
    out = tmp_path / "run.json"
    argv = [
        "--data-dir",
        str(tmp_path / "data"),
        "run",
        "fusion",
        "--workload",
        "rms_norm",
        "--pass",
        "fwd_bwd",
        "--shape",
        "256x256",
        "--device",
        "cpu",
        "--modes",
        "eager,inductor",
        # the step's kernels are the point here: compile latency and the trace are other tests'
        "--compile-latency",
        "false",
        "--compile-trace",
        "false",
        "--warmup",
        "2",
        "--repeat",
        "5",
        "--json",
        str(out),
    ]
    assert main(argv) == EXIT_OK
    document = json.loads(out.read_text())
    assert document["spec"]["options"]["pass"] == "fwd_bwd"
    result = document["result"]
    assert result["training_pass"] == "fwd_bwd"
    modes = {m["mode"]: m for m in result["modes"]}
    for mode in ("eager", "inductor"):
        found = modes[mode]
        assert found["ran"] and found["forward_kernels"] > 0 and found["backward_kernels"] > 0
        assert found["forward_kernel_rows"] and found["backward_kernel_rows"]
        assert found["grad_tolerance_passed"] is True
        assert found["grad_rel_err_fp64"] < 1e-4
        # each gradient judged as an output is, over its own reductions: w's sums the tokens
        checks = {c["name"]: c for c in found["grad_checks"]}
        assert checks["x"]["reduction_lengths"] == [256]
        assert checks["w"]["reduction_lengths"] == [256, 256]
        assert {c["tolerance_rule"] for c in checks.values()} == {"float64 bound"}
        assert found["saved"]["tensors"] > 0 and found["saved"]["bytes"] > 0
    # Inductor fuses the backward too: eager's autograd runs an op per node
    assert modes["inductor"]["backward_kernels"] < modes["eager"]["backward_kernels"]
    assert any("cpp_fused" in k["name"] for k in modes["inductor"]["backward_kernel_rows"])
    summary = document["summary"]
    assert summary["backward_kernels"]["inductor"] == modes["inductor"]["backward_kernels"]
    # AOTAutograd's partitioner keeps less for the backward than eager's autograd nodes do
    saved = {mode: modes[mode]["saved"] for mode in ("eager", "inductor")}
    assert saved["inductor"]["activation_bytes"] < saved["eager"]["activation_bytes"]
    assert summary["saved_bytes"] == {mode: saved[mode]["bytes"] for mode in saved}
    assert summary["grad_tolerance_rule"] == {"eager": "float64 bound", "inductor": "float64 bound"}
    # the step's own bytes model: grad_output and both gradients at 256² fp32, plus the rest
    assert result["grad_output_bytes"] == 256 * 256 * 4
    assert result["grad_bytes"] == 256 * 256 * 4 + 256 * 4
    assert summary["step_ideal_bytes"] > result["ideal_bytes"] + 2 * 256 * 256 * 4
    assert set(summary["step_gbps"]) == {"eager", "inductor"}


def _draw(run):
    from runtime_lab import ui

    ui.draw(run)


def test_a_fwd_bwd_report_on_the_fusion_page_shows_forward_and_backward_kernels():
    run = fusiondata.run(fusiondata.with_training())
    run["env"] = {}
    at = AppTest.from_function(_draw, args=(run,), default_timeout=30)
    at.run()
    assert not at.exception, at.exception
    boxes = [b.value for b in (*at.success, *at.warning)]  # amber: the clocks disagree
    assert boxes[0].startswith(
        "fusion rms_norm cuda:0 4096x4096 float32, forward + backward: inductor 1 + 1 kernels"
    )
    tabs = {t.label: t for t in at.tabs}
    shown = {m.label: m.value for m in tabs["Summary"].metric}
    assert shown["eager kernels"] == "4 + 8 per call"  # "(forward + backward)" its caption
    # the bytes as the figure (whole in its column), the tensors in its caption
    assert shown["inductor saved for backward"] == "64 MiB"
    captions = [c.value for c in tabs["Summary"].caption]
    assert "(3 tensors; 16 KiB besides the inputs)" in captions, captions
    table = next(d.value for d in tabs["Kernels"].dataframe if "pass" in d.value.columns)
    by_pass = table.groupby(["mode", "pass"])["name"].apply(list).to_dict()
    assert by_pass[("inductor", "forward")] == ["triton_red_fused_0"]
    assert by_pass[("inductor", "backward")] == ["triton_red_fused_1"]
    assert by_pass[("eager", "backward")] == ["aten::sum"]
    titles = [m.value for tab in at.tabs for m in tab.markdown if m.value.startswith("**")]
    assert not [t for t in titles if "Bandwidth" in t or "Roofline" in t]


def test_the_custom_op_pair_in_backward_a_barrier_forward_and_a_fused_backward(tmp_path):
    """norm_block (traceable) beside norm_block_opaque_grad (the custom op with a formula from
    register_autograd) in fwd_bwd: the op stays a barrier in the compiled forward, while its
    traced formula fuses in the backward; norm_block_opaque (no formula) is refused."""
    from runtime_lab.registry import result_from_record
    from runtime_lab.runner.jobs import JobManager
    from runtime_lab.spec import SpecError, build_spec

    options = {"modes": "eager,inductor", "pass": "fwd_bwd", "compile_latency": False}
    options |= {"compile_trace": False}
    jobs = JobManager(data_dir=tmp_path / "data", timeout_s=600)
    try:
        ids = {
            name: jobs.submit(
                build_spec(
                    "fusion",
                    "256x256",
                    device="cpu",
                    warmup=1,
                    repeat=3,
                    options=options | {"workload": name},
                )
            )
            for name in ("norm_block", "norm_block_opaque_grad")
        }
        runs = {name: jobs.wait(job_id, 600).as_run() for name, job_id in ids.items()}
    finally:
        jobs.close()
    kernels = {}
    for name, run in runs.items():
        assert run["status"] == "done", run.get("error")
        by = {m.mode: m for m in result_from_record("fusion", run["result"]).modes}
        assert by["inductor"].grad_tolerance_passed is True, name
        kernels[name] = by["inductor"]
    traceable, opaque = kernels["norm_block"], kernels["norm_block_opaque_grad"]
    # forward: the op's own eager ops run inside the barrier
    assert opaque.forward_kernels > traceable.forward_kernels + 3
    # backward: the registered formula is traced and fused like the traceable block's
    assert opaque.backward_kernels <= traceable.backward_kernels + 2
    assert any("cpp_fused" in k.name for k in opaque.backward_kernel_rows)
    with pytest.raises(SpecError, match="norm_block_opaque_grad is the same op with one"):
        build_spec("fusion", "256x256", options=options | {"workload": "norm_block_opaque"})
