"""The workload catalog: declarations agree with their ops, the bytes model, the spec's checks."""

import math

import pytest
import torch

from runtime_lab.spec import SpecError, build_spec, spec_from_values
from runtime_lab.workloads import ops
from runtime_lab.workloads.fit import params_of
from runtime_lab.workloads.registry import NAMES, WORKLOADS, get, op_module


def _cpu(name: str, dtype: str = "float32") -> ops.Loaded:
    work = WORKLOADS[name]
    return ops.load(name, work.cpu_shape, dtype, "cpu", 0, dict(work.cpu_params))


def _total(eager) -> int:
    return sum(o.read_bytes + o.write_bytes for o in eager)


def test_the_catalog_has_the_operators_engineers_run():
    wanted = {"softmax", "rms_norm", "layer_norm", "swiglu_mlp", "gemm_epilogue", "attention"}
    wanted |= {"cross_entropy", "rope", "transformer_block", "pointwise", "long-chain", "matmul"}
    assert wanted <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_a_declaration_is_consistent(name):
    work = WORKLOADS[name]
    assert work.name == name and work.look_for and work.formula
    assert len(work.default_shape) == len(work.cpu_shape) == len(work.dims)
    assert set(work.dynamic_dims) <= set(work.dims)
    assert work.bound in ("memory", "compute")
    assert len({p.name for p in work.presets}) == len(work.presets)
    assert all(len(p.shape) == len(work.dims) for p in work.presets)
    assert {k for k, _ in work.cpu_params} <= {k for k, _ in work.params}
    # every preset passes the spec's own check, as the CLI and the page would take it
    for preset in work.presets:
        spec = build_spec("fusion", preset.name, options={"workload": name})
        assert spec.shape == preset.shape


@pytest.mark.parametrize("name", NAMES)
def test_every_workload_matches_its_float64_reference_on_cpu(name):
    work = _cpu(name)
    out, eager = ops.eager_call(work.fn, work.inputs)
    ref = ops.reference(work)
    assert out.shape == ref.shape and torch.isfinite(out).all()
    rel = ((out.double() - ref).abs().max() / ref.abs().max()).item()
    assert rel < 1e-5, rel
    assert ops.flops(work) > 0
    # eager moves at least what reading each input and writing each output once moves
    assert eager and _total(eager) >= ops.ideal_bytes(work, out) > 0


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", NAMES)
def test_half_precision_inputs_stay_finite(name, dtype):
    work = _cpu(name, dtype)
    out = work.call()
    assert torch.isfinite(out.float()).all()
    assert out.dtype in (torch.float32, getattr(torch, dtype))


def test_the_bytes_model_of_the_seed_workload():
    work = ops.load("pointwise", (64, 32), "float32", "cpu", 0)
    out, eager = ops.eager_call(work.fn, work.inputs)
    n = 64 * 32 * 4
    assert [o.op for o in eager] == ["add", "silu", "sub", "mul"]
    assert (_total(eager), ops.ideal_bytes(work, out)) == (11 * n, 3 * n)


def test_the_rms_norm_upcast_is_a_kernel_of_its_own_in_bf16():
    work = _cpu("rms_norm", "bfloat16")
    out, eager = ops.eager_call(work.fn, work.inputs)
    names = [o.op for o in eager]
    assert names.count("_to_copy") == 2, names  # up to fp32 and back
    assert _total(eager) > 4 * ops.ideal_bytes(work, out)


def test_views_move_no_bytes_and_are_left_out():
    work = _cpu("rope")
    _, eager = ops.eager_call(work.fn, work.inputs)
    assert not {"slice", "unsqueeze", "view", "expand"} & {o.op for o in eager}


def test_attention_reference_is_sdpa():
    q, k, v = _cpu("attention").inputs
    sdpa = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    torch.testing.assert_close(op_module("attention").reference(q, k, v), sdpa)


def test_a_block_refuses_heads_that_do_not_divide_hidden():
    with pytest.raises(ValueError, match="hidden 250 is not divisible by heads 32"):
        ops.load("transformer_block", (1, 8, 250), "float32", "cpu", 0, {"heads": 32})


def test_the_footprint_covers_what_a_job_holds():
    name, shape = "cross_entropy", (64, 1024)
    held = ops.footprint(name, shape, "bfloat16", None, 3)
    logits = math.prod(shape) * 2
    assert held > logits * 3  # the logits, their fp32 copy, log_softmax's, the float64 reference


def _problems(shape, **options) -> dict:
    with pytest.raises(SpecError) as caught:
        build_spec("fusion", shape, options=options)
    return caught.value.problems


def test_a_shape_must_have_the_workloads_dims():
    said = _problems("4096x4096", workload="attention")["shape"]
    assert "attention takes 4: batch × heads × seq × head_dim" in said


def test_an_unknown_preset_names_the_ones_there_are():
    said = _problems("llama-99b", workload="rms_norm")["shape"]
    assert "not a shape or a preset of rms_norm" in said and "llama3-8b-4k" in said


def test_params_are_checked_against_the_workload():
    assert (
        "has no parameter 'vocab'"
        in _problems("8x8", workload="swiglu_mlp", params="vocab=3")["params"]
    )
    assert (
        "not name=integer"
        in _problems("8x8", workload="swiglu_mlp", params="intermediate=x")["params"]
    )
    spec = build_spec("fusion", "llama3-8b-4k", options={"workload": "swiglu_mlp"})
    assert (spec.shape, spec.option("params")) == ((4096, 4096), "intermediate=14336")
    typed = {"workload": "swiglu_mlp", "params": "intermediate=99"}
    assert (
        build_spec("fusion", "qwen2.5-7b-4k", options=typed).option("params") == "intermediate=99"
    )
    assert params_of(get("swiglu_mlp"), "") == {}


def test_a_workload_without_a_shape_takes_its_own():
    spec = spec_from_values("fusion", {"workload": "attention"})
    assert spec.shape == WORKLOADS["attention"].default_shape


def test_runs_and_links_from_before_the_catalog_still_read():
    spec = build_spec("fusion", "64x64", options={"variant": "long-chain"})
    assert spec.option("workload") == "long-chain"
    assert "variant" not in dict(spec.options)


def test_the_element_limit_applies_to_each_tensor_a_gemm_makes_not_to_m_times_n_times_k():
    from runtime_lab.spec import SpecError, build_spec

    # llama3-8b's MLP GEMM: 4096 x 4096 x 14336 is 2.4e11 as a product, 5.9e7 per operand
    spec = build_spec("fusion", [4096, 4096, 14336], options={"workload": "matmul"})
    assert spec.shape == (4096, 4096, 14336)
    with pytest.raises(SpecError, match="makes a tensor of 1e\\+12 elements, above the lab's"):
        build_spec("fusion", "1000000x1000000", options={"workload": "pointwise"})
    with pytest.raises(SpecError, match="above the lab's limit"):
        build_spec("fusion", "1000000x4x1000000", options={"workload": "matmul"})
