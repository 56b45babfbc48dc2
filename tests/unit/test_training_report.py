"""A training step in fusion's report (issue 39): the pass named in the headline, Summary and
kernel tables, forward and backward kernels apart, the forward's bytes model kept out of the
step's figures, a wrong gradient named, what each mode saved for backward; compare and
History labels show the pass (hand-made results, no worker)."""

from dataclasses import replace

import fusiondata
import pytest

from runtime_lab import registry
from runtime_lab.compare import comparison, labels, workloads
from runtime_lab.fusion.report import frames as ff
from runtime_lab.fusion.report import step
from runtime_lab.fusion.report.figures import figures, key_figures
from runtime_lab.record import Run
from runtime_lab.spec import build_spec


def _report(**kwargs):
    return registry.build_report(fusiondata.run(fusiondata.with_training(**kwargs)))


def _titles(items) -> list[str]:
    return [title for title, *_ in items]


def test_the_headline_names_the_pass_and_each_pass_s_kernels():
    both = _report()
    assert both.headline.startswith(
        "fusion rms_norm cuda:0 4096x4096 float32, forward + backward: "
        "inductor 1 + 1 kernels vs eager 4 + 8, 3.0× faster"
    )
    assert both.ok
    backward = _report(step="bwd")
    assert ", backward only: inductor 1 kernel vs eager 8," in backward.headline
    # a forward run's headline is as it was
    forward = registry.build_report(fusiondata.run(fusiondata.with_catalog("rms_norm")))
    assert "forward" not in forward.headline and "+" not in forward.headline


def test_the_summary_says_the_pass_and_shows_what_each_mode_saved_for_backward():
    summary = _report().summary
    shown = {m.label: m.value for pair in summary.pairs for m in pair}
    assert shown["eager kernels"] == "4 + 8 per call (forward + backward)"
    assert shown["compiled kernels"] == "1 + 1 per call (inductor, forward + backward)"
    # eager's saved tensors beside the compiled mode's, side by side
    assert shown["eager saved for backward"].startswith("128 MiB (6 tensors; ")
    assert shown["inductor saved for backward"] == "64 MiB (3 tensors; 16 KiB besides the inputs)"
    assert summary.prose[0].startswith("Each time is of the step (forward + backward)")
    assert summary.chart.startswith("Kernels per call") or summary.chart.startswith("Steady")


def test_the_kernel_table_and_chart_hold_forward_and_backward_kernels_apart():
    rep = _report()
    tables = dict(rep.tables)
    kernels = tables["Kernels by pass (forward, backward)"]
    rows = kernels[kernels["mode"].isin(["eager", "inductor"])]
    assert list(zip(rows["mode"], rows["pass"], rows["name"], strict=True)) == [
        ("eager", "forward", "aten::mul"),
        ("eager", "backward", "aten::sum"),
        ("inductor", "forward", "triton_red_fused_0"),
        ("inductor", "backward", "triton_red_fused_1"),
    ]
    assert "bar" not in kernels  # the chart's column: mode and pass say it in the table
    chart = next(c for t, c in rep.charts if t.startswith("Kernels per call of the step"))
    spec = chart.to_dict()
    assert spec["layer"][0]["encoding"]["y"]["field"] == "bar"
    bars = {row["bar"] for rows in spec["datasets"].values() for row in rows}
    assert {"eager · forward", "eager · backward", "inductor · backward"} <= bars


def test_a_kernel_run_outside_both_passes_is_its_own_row():
    result = fusiondata.with_training()
    eager = result.modes[0]
    extra = fusiondata.kernel("aten::zero_", 2.0, 2.0)
    padded = replace(eager, kernels=(*eager.kernels, extra))
    frame = ff.kernels_frame(replace(result, modes=(padded, *result.modes[1:])))
    outside = frame[frame["pass"] == "outside the step"]
    assert list(outside["name"]) == ["aten::zero_"] and list(outside["calls_per_run"]) == [2.0]


def test_the_forward_s_bytes_model_is_kept_out_of_a_step_s_figures_with_one_line_why():
    rep = _report()
    charts = _titles(rep.charts)
    assert not [t for t in charts if t.startswith(("Bandwidth", "Roofline", "Sweep: achieved"))]
    assert "Sweep: time per call against size" in charts  # times are the step's: they stay
    modes = dict(rep.tables)["Modes"]
    for column in ("achieved_gbps", "ceiling_pct", "transfers_per_element", "bytes_per_call"):
        assert column not in modes
    for column in ("forward_kernels", "backward_kernels", "grad_max_err_fp64", "saved_bytes"):
        assert column in modes
    labels_shown = [m.label for m in rep.metrics]
    assert not [m for m in labels_shown if "ceiling" in m or "bytes" in m or "TFLOP" in m]
    assert [n for n in rep.notes if n.startswith("The roofline, arithmetic intensity and the")]
    # the step's own bytes model stands in the notes, with each mode's bandwidth over it
    assert [n for n in rep.notes if n.startswith("The step's ideal bytes, ") and "GB/s" in n]
    key = key_figures(fusiondata.with_training())
    assert key["predicted_speedup"] is None
    assert set(key["achieved_gbps"].values()) == {None}
    # the same run as a forward keeps every figure
    forward = figures(replace(fusiondata.with_training(), training_pass="fwd"))
    assert all(f.achieved_gbps for f in forward.modes if f.steady_state_ms)


def test_a_wrong_gradient_is_named_in_the_headline_and_the_box_is_red():
    rep = _report(wrong_grad=True)
    assert rep.headline.endswith(
        "; inductor's gradient of w is outside tolerance against float64 "
        "(w: max err 0.5 > allowed 0.03): its speed is of a wrong answer"
    )
    assert not rep.ok and rep.verdict.ok is False
    assert rep.verdict.doubt == (
        "Wrong gradient: inductor outside tolerance against float64; do not quote its speed."
    )
    said = [n for n in rep.notes if n.startswith("inductor's gradient of w FAILED")]
    assert said == [
        "inductor's gradient of w FAILED 'float64 bound': max |gradient − float64| 0.5 against "
        "0.03 allowed (2 · (eps(float32) 1.19e-07 + eps(float32) 1.19e-07 · √K) · "
        "max |float64 gradient|, K = 4096 + 4096)."
    ]
    key = key_figures(fusiondata.with_training(wrong_grad=True))
    assert key["grads_outside_tolerance"] == ["inductor: w"]
    assert key["grad_tolerance_rule"]["inductor"] == "float64 bound"
    evidence = dict(rep.tables)["Evidence: the deployment checklist per compiled mode"]
    row = evidence.set_index("check").loc["gradients", "inductor"]
    assert row == "FAIL against float64: x 1.00e-06 ≤ 2.00e-05; w 5.00e-01 > 3.00e-02"


def test_saved_for_backward_is_recorded_per_mode_and_compared_with_eager_s():
    key = key_figures(fusiondata.with_training())
    assert key["saved_tensors"] == {"eager": 6, "inductor": 3}
    assert key["saved_activation_bytes"]["inductor"] == 4 * 4096
    note = step.saved_note(fusiondata.with_training())
    assert note.endswith("Activations held, as a share of eager's: inductor 0.024 %.")


@pytest.mark.parametrize("experiment", ["fusion", "allocator", "recompiles"])
def test_history_labels_and_compare_show_the_pass_and_a_run_before_it_reads_fwd(experiment):
    options = {"workload": "rms_norm"}
    forward = build_spec(experiment, "64x64", device="cpu", options=options).to_dict()
    both = build_spec(experiment, "64x64", device="cpu", options=options | {"pass": "fwd_bwd"})
    older = dict(forward, options={k: v for k, v in forward["options"].items() if k != "pass"})
    assert workloads.normalised(older)["options"]["pass"] == "fwd"  # stored before the option
    rows = [
        {"id": 1, "experiment": experiment, "spec": older},
        {"id": 2, "experiment": experiment, "spec": both.to_dict()},
    ]
    found = labels.labels(rows)
    assert "pass=fwd" in found[1] and "pass=fwd_bwd" in found[2]
    # two forward runs, one stored before the option: the pass does not tell them apart
    same = labels.labels([rows[0], {"id": 3, "experiment": experiment, "spec": forward}])
    assert "pass=" not in same[1] and "pass=" not in same[3]


def test_compare_lists_the_pass_among_the_fields_that_differ():
    result = fusiondata.with_training()
    forward = build_spec("fusion", "64x64", device="cpu", options={"workload": "rms_norm"})
    older = forward.to_dict()
    del older["options"]["pass"]
    both = build_spec(
        "fusion", "64x64", device="cpu", options={"workload": "rms_norm"} | {"pass": "fwd_bwd"}
    )
    runs = [
        Run(id=i, status="done", spec=spec, result=fusiondata.run(result)["result"])
        for i, spec in ((1, older), (2, both.to_dict()))
    ]
    diffs = comparison.differences(runs)
    row = diffs[diffs["field"] == "option pass"]
    assert list(row.iloc[0, 2:]) == ["fwd", "fwd_bwd"]
