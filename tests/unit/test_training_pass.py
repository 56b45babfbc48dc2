"""The training step's pass (issue 39): the option on the spec, links and CLI; the step's
callables and gradients on small tensors; kernels split by pass; the fusion figures."""

from __future__ import annotations

import statistics
from types import SimpleNamespace

import fusiondata
import pytest
import torch

from runtime_lab.cli.main import EXIT_USAGE, build_parser, main
from runtime_lab.fusion.report.figures import key_figures
from runtime_lab.fusion.run import grads
from runtime_lab.lab import profiling, training
from runtime_lab.passes import PASSES
from runtime_lab.registry import EXPERIMENTS
from runtime_lab.spec import RunSpec, SpecError, build_spec
from runtime_lab.ui import links
from runtime_lab.workloads import ops

STEPPED = ("fusion", "recompiles", "allocator")


@pytest.mark.parametrize("experiment", STEPPED)
def test_every_stepped_experiment_takes_the_pass_defaulting_to_fwd(experiment):
    option = EXPERIMENTS[experiment].options["pass"]
    assert option.choices == PASSES and option.default == "fwd"
    spec = build_spec(experiment, "64x64", device="cpu", options={"workload": "rms_norm"})
    assert spec.option("pass") == "fwd"
    both = build_spec(experiment, "64x64", options={"workload": "rms_norm", "pass": "fwd_bwd"})
    assert both.option("pass") == "fwd_bwd" and "pass=fwd_bwd" in both.label


def test_a_bad_pass_names_the_allowed_ones():
    with pytest.raises(SpecError) as caught:
        build_spec("fusion", "64x64", options={"workload": "rms_norm", "pass": "backward"})
    assert caught.value.problems == {
        "pass": "'backward' is not allowed; allowed: fwd, bwd, fwd_bwd"
    }


def test_a_custom_op_without_autograd_is_refused_with_the_spec():
    with pytest.raises(SpecError) as caught:
        build_spec("fusion", "64x64", options={"workload": "norm_block_opaque", "pass": "bwd"})
    said = caught.value.problems["pass"]
    assert "norm_block_opaque cannot be differentiated" in said and said.endswith("allowed: fwd")
    assert "\n" not in said
    # its forward still runs
    build_spec("fusion", "64x64", options={"workload": "norm_block_opaque", "pass": "fwd"})


def test_a_stored_spec_without_the_pass_loads_as_fwd():
    stored = build_spec("fusion", "64x64", options={"workload": "rms_norm"}).to_dict()
    del stored["options"]["pass"]
    assert RunSpec.from_dict(stored).option("pass") == "fwd"


def test_links_carry_the_pass_and_refuse_a_bad_one():
    info = EXPERIMENTS["fusion"]
    spec = build_spec("fusion", "64x64", options={"workload": "rms_norm", "pass": "bwd"})
    query = links.to_query(spec)
    assert query["pass"] == "bwd"
    values, problems = links.from_query(info, query, {}, ["auto", "cpu"])
    assert values["pass"] == "bwd" and problems == {}
    _, problems = links.from_query(info, query | {"pass": "both"}, {}, ["auto", "cpu"])
    assert problems == {"pass": "'both' is not one of fwd, bwd, fwd_bwd"}


def test_the_cli_takes_the_pass_and_refuses_a_bad_one_in_one_line(tmp_path, capsys):
    args = build_parser().parse_args(
        ["run", "allocator", "--workload", "rms_norm", "--pass", "fwd_bwd"]
    )
    assert args.opt_pass == "fwd_bwd"
    argv = ["--data-dir", str(tmp_path), "run", "fusion", "--pass", "fwd+bwd", "--device", "cpu"]
    assert main(argv) == EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "runtime_lab: invalid input: pass: 'fwd+bwd' is not allowed; allowed: fwd, bwd, fwd_bwd"
    ]


def _inputs():
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(4, 8, generator=generator)
    w = torch.randn(8, generator=generator)
    return x, w, torch.arange(4)  # an integer input never gets a gradient


def _fn(x, w, index):
    return (x * w).tanh()[index]


class _Declared:
    GRAD_INPUTS = (1,)


def test_grad_indices_are_the_floating_inputs_or_the_declared_ones():
    inputs = _inputs()
    assert training.grad_indices(None, inputs) == (0, 1)
    assert training.grad_indices(_Declared, inputs) == (1,)
    with pytest.raises(training.NotDifferentiable, match="no floating inputs"):
        training.grad_indices(None, (torch.arange(3),))


def test_fwd_is_the_forward_alone_on_inputs_that_need_no_grad():
    inputs = _inputs()
    call = training.step(_fn, inputs, "fwd")
    assert not isinstance(call, training.Step)
    out = call()
    assert not out.requires_grad and torch.equal(out, _fn(*inputs))


def _expected_grads(inputs):
    x, w = (t.detach().requires_grad_() for t in inputs[:2])
    out = _fn(x, w, inputs[2])
    out.backward(training.grad_output(out))
    return x.grad, w.grad


def test_fwd_bwd_gives_autograd_s_gradients_every_call_without_accumulating():
    inputs = _inputs()
    step = training.step(_fn, inputs, "fwd_bwd")
    out = step()
    assert torch.equal(out.detach(), _fn(*inputs))
    first = [g.clone() for g in step.grads()]
    step()  # set to None before the call: the same gradients, not twice them
    for got, again, want in zip(first, step.grads(), _expected_grads(inputs), strict=True):
        assert torch.allclose(got, want) and torch.equal(got, again)
    assert not inputs[0].requires_grad  # the step's leaves are its own


def test_bwd_runs_the_forward_once_and_times_the_backward_of_its_retained_graph():
    inputs, calls = _inputs(), []

    def counted(*args):
        calls.append(1)
        return _fn(*args)

    step = training.step(counted, inputs, "bwd")
    for _ in range(3):
        step()
    assert len(calls) == 1
    for got, want in zip(step.grads(), _expected_grads(inputs), strict=True):
        assert torch.allclose(got, want)


def test_an_output_without_a_graph_cannot_be_differentiated():
    step = training.step(lambda x, w, i: i * 2, _inputs(), "fwd_bwd")
    with pytest.raises(training.NotDifferentiable, match="does not depend"):
        step()


def test_reference_grads_are_float64_from_the_same_grad_output():
    inputs = _inputs()
    step = training.step(_fn, inputs, "fwd_bwd")
    step()
    ref = training.reference_grads(_fn, inputs, step.indices, step.grads_out)
    assert all(r.dtype == torch.float64 for r in ref)
    for got, want in zip(step.grads(), ref, strict=True):
        assert torch.allclose(got.double(), want, atol=1e-6)


def toy_work(fn=_fn, inputs=None) -> ops.Loaded:
    """A Loaded workload over the toy function (its module: fn alone, nothing declared)."""
    return ops.Loaded("toy", SimpleNamespace(fn=fn), (4, 8), {}, inputs or _inputs())


def test_fusion_grad_checks_pass_eager_s_own_gradients_and_flag_wrong_ones():
    inputs = _inputs()
    made = {"work": toy_work(inputs=inputs), "tolerance": (1.3e-6, 1e-5), "notes": []}
    spec = build_spec("fusion", "64x64", options={"workload": "rms_norm", "pass": "fwd_bwd"})
    grads.prepare(spec, made)
    assert made["notes"] == []  # the report says what a step's figures leave out (step.py)
    step = training.step(_fn, inputs, "fwd_bwd")
    step()
    found = grads.checks(step, made)
    assert found["grad_tolerance_passed"] and found["grad_max_abs_diff_fp64"] < 1e-5
    wrong = training.step(lambda x, w, i: _fn(x, w, i) * 1.1, inputs, "fwd_bwd")
    wrong()
    assert grads.checks(wrong, made)["grad_tolerance_passed"] is False
    assert grads.checks(lambda: None, made) == {}  # the forward alone: nothing to check


def test_profile_step_splits_the_kernels_by_pass(tmp_path):
    step = training.step(_fn, _inputs(), "fwd_bwd")
    step()
    rows, split = profiling.profile_step(step, torch.device("cpu"), 2, tmp_path / "t.json")
    forward = {r.name for r in split.forward}
    backward = {r.name for r in split.backward}
    assert {"aten::mul", "aten::tanh"} <= forward
    assert "aten::tanh_backward" in backward and "aten::tanh_backward" not in forward
    assert {r.name for r in rows} >= forward | backward
    assert all(r.calls_per_run > 0 for r in split.forward + split.backward)


def test_fusion_figures_name_each_pass_s_kernels_and_fwd_runs_keep_their_summary():
    found = key_figures(fusiondata.with_training())
    assert found["training_pass"] == "fwd_bwd"
    assert found["forward_kernels"]["eager"] == 4 and found["backward_kernels"]["eager"] == 8
    assert found["backward_kernels"]["inductor"] < found["backward_kernels"]["eager"]
    assert found["backward_kernel_names"]["inductor"] == ["triton_red_fused_1"]
    assert "training_pass" not in key_figures(fusiondata.with_catalog("rms_norm"))


def test_a_device_kernel_belongs_to_the_pass_whose_range_holds_its_launch_runtime_or_driver():
    from runtime_lab.lab.profiling import split_by_pass
    from runtime_lab.lab.training import BACKWARD_RANGE, FORWARD_RANGE

    def span(name, ts, dur, cat="user_annotation", **args):
        return {"name": name, "ph": "X", "cat": cat, "ts": ts, "dur": dur, "args": args}

    events = [
        span(FORWARD_RANGE, 0, 100),
        span(BACKWARD_RANGE, 200, 100),
        span("cudaLaunchKernel", 10, 5, "cuda_runtime", correlation=1),  # ATen, forward
        span("cuLaunchKernel", 210, 5, "cuda_driver", correlation=2),  # Triton, backward
        span("cuLaunchKernel", 150, 5, "cuda_driver", correlation=3),  # between: neither
        span("vectorized_elementwise_kernel", 20, 9, "kernel", correlation=1),
        span("triton_red_fused_0", 220, 9, "kernel", correlation=2),
        span("triton_poi_fused_1", 160, 9, "kernel", correlation=3),
    ]
    split = split_by_pass(events)
    assert [e["name"] for e in split[FORWARD_RANGE]] == ["vectorized_elementwise_kernel"]
    assert [e["name"] for e in split[BACKWARD_RANGE]] == ["triton_red_fused_0"]


def test_every_headline_says_a_training_step_and_keeps_a_forward_run_as_it_was():
    from dataclasses import replace

    from allocatordata import run as allocator_run
    from allocatordata import workload_result
    from recompilesdata import result as recompiles_result

    from runtime_lab import registry
    from runtime_lab.passes import said
    from runtime_lab.recompiles.report import workload as recompiles_words

    assert said("fwd") == "" and said("bwd") == ", backward only"
    alloc = workload_result()
    assert ", forward + backward" not in registry.build_report(allocator_run(alloc)).headline
    stepped = allocator_run(replace(alloc, training_pass="fwd_bwd"))
    assert f"{alloc.dtype} on {alloc.device}, forward + backward: " in (
        registry.build_report(stepped).headline
    )
    rec = replace(
        recompiles_result(),
        workload="rms_norm",
        dim_names=("tokens", "hidden"),
        training_pass="fwd_bwd",
    )
    assert recompiles_words.head(rec, "CPU").startswith(
        "recompiles rms_norm (tokens × hidden) CPU inductor, forward + backward, 6 calls"
    ), recompiles_words.head(rec, "CPU")


def test_the_allocator_s_step_hands_its_held_mark_what_the_forward_saved():
    """A training step's "activations held" mark gets the bytes the forward saved for its
    backward besides the inputs; a forward-only step has no such mark."""
    from runtime_lab.allocator.run.work import Workload

    seen = []
    work = Workload("rms_norm", step="fwd_bwd")
    loaded = work.load((64, 32), "float32", torch.device("cpu"))
    work.run(loaded, seen.append)
    inputs = sum(t.numel() * t.element_size() for t in loaded.inputs)
    assert len(seen) == 1 and 0 < seen[0] <= 4 * inputs, (seen, inputs)
    Workload("rms_norm").run(work.load((64, 32), "float32", torch.device("cpu")), seen.append)
    assert len(seen) == 1


def test_a_step_s_bytes_model_counts_each_tensor_it_must_move_once():
    from runtime_lab.fusion.report import step

    result = fusiondata.with_training()
    n = fusiondata.N
    lean = fusiondata.SAVED["inductor"]  # the partitioner saved less than eager's nodes
    backward = 4 * n + lean.bytes + 4 * n + 4 * 4096
    assert step.ideal_step_bytes(result) == result.ideal_bytes + lean.activation_bytes + backward
    bwd = fusiondata.with_training("bwd")
    assert step.ideal_step_bytes(bwd) == backward
    key = key_figures(result)
    assert key["step_ideal_bytes"] == step.ideal_step_bytes(result)
    inductor_s = (
        statistics.median(next(m for m in result.modes if m.mode == "inductor").timing.primary_ms)
        / 1e3
    )
    assert key["step_gbps"]["inductor"] == pytest.approx(key["step_ideal_bytes"] / inductor_s / 1e9)
    assert key["step_gbps"]["eager"] < key["step_gbps"]["inductor"]
    note = next(t for t in step.notes(result) if t.startswith("The step's ideal bytes"))
    assert "what inductor saved read back" in note and "GB/s" in note
    forward = fusiondata.with_catalog("rms_norm")
    assert step.ideal_step_bytes(forward) is None and "step_gbps" not in key_figures(forward)
