"""The training step's pass (issue 39) end to end: each page offers it and submits it; the CLI
runs rms_norm's forward and backward and records each pass's kernels per mode."""

from __future__ import annotations

import json

import pytest
from apphelpers import open_page, widget

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
    # Inductor fuses the backward too: eager's autograd runs an op per node
    assert modes["inductor"]["backward_kernels"] < modes["eager"]["backward_kernels"]
    assert any("cpp_fused" in k["name"] for k in modes["inductor"]["backward_kernel_rows"])
    summary = document["summary"]
    assert summary["backward_kernels"]["inductor"] == modes["inductor"]["backward_kernels"]
