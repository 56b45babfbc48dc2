"""A training step's gradients judged as outputs are (issue 39): the float64 bound over each
gradient's own reduction lengths, the gradient named; what the forward saved for backward,
counted by autograd's pack hook (small tensors, no compile)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from runtime_lab.fusion.run import grads
from runtime_lab.lab import saved, training
from runtime_lab.spec import build_spec
from runtime_lab.workloads import ops, tolerance

TOKENS, HIDDEN = 64, 32


def _norm(x, w):
    """rms_norm's shape of computation: a reduction over hidden, a weight over tokens."""
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w


def _work(fn=_norm, dtype=torch.float32, module=None) -> ops.Loaded:
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(TOKENS, HIDDEN, generator=generator, dtype=dtype)
    w = 1 + 0.1 * torch.randn(HIDDEN, generator=generator, dtype=dtype)
    return ops.Loaded("toy", module or SimpleNamespace(fn=fn), (TOKENS, HIDDEN), {}, (x, w))


def _prepared(work: ops.Loaded, dtype: str = "float32") -> dict:
    made = {"work": work, "tolerance": ops.TOLERANCES[dtype], "notes": []}
    spec = build_spec("fusion", "64x32", dtype, options={"workload": "rms_norm", "pass": "fwd_bwd"})
    grads.prepare(spec, made)
    return made


def _step(work: ops.Loaded, fn=None) -> training.Step:
    step = training.step(fn or work.fn, work.inputs, "fwd_bwd")
    step()
    return step


def test_a_gradient_reduces_over_the_forward_s_lengths_and_what_it_is_broadcast_over():
    work = _work()
    out = work.call()
    # the input's gradient: the forward's row; the weight's also sums over the tokens
    assert ops.grad_reduction_lengths(work, (0, 1), out) == ((HIDDEN,), (HIDDEN, TOKENS))
    loss = ops.grad_reduction_lengths(work, (0, 1), out.sum())  # a scalar sums nothing more
    assert loss == ((HIDDEN,), (HIDDEN,))


def test_a_gemm_declares_its_gradients_reductions():
    work = ops.load("matmul", (8, 16, 4), "float32", torch.device("cpu"), 0)
    # da = dc · bᵀ over n, db = aᵀ · dc over m: not the forward's k
    assert ops.grad_reduction_lengths(work, (0, 1), work.call()) == ((4,), (8,))


def test_eager_s_gradients_pass_the_float64_bound_each_named_with_its_own_reductions():
    work = _work()
    made = _prepared(work)
    found = grads.checks(_step(work), made)
    x, w = found["grad_checks"]
    assert (x.name, x.reduction_lengths) == ("x", (HIDDEN,))
    assert (w.name, w.reduction_lengths) == ("w", (HIDDEN, TOKENS))
    for check in (x, w):
        assert check.tolerance_passed and check.tolerance_rule == "float64 bound"
        assert check.max_abs_diff_fp64 <= check.allowed_err_fp64
    assert found["grad_tolerance_passed"] is True and "not_timed" not in found
    # the allowance is the forward's formula over the gradient's K and its own scale
    ref_w = made["grads"]["ref64"][1]
    scale = ref_w.abs().max().item()
    assert w.allowed_err_fp64 == pytest.approx(
        tolerance.allowed_error("float32", (HIDDEN, TOKENS), scale)
    )


def test_a_wrong_weight_gradient_fails_and_is_the_one_the_summary_quotes():
    work = _work()
    made = _prepared(work)

    class Scaled(torch.autograd.Function):
        """The forward as it is; the weight's gradient 5 % too large."""

        @staticmethod
        def forward(ctx, w):
            return w.view_as(w)

        @staticmethod
        def backward(ctx, grad):
            return grad * 1.05

    found = grads.checks(_step(work, lambda x, w: _norm(x, Scaled.apply(w))), made)
    x, w = found["grad_checks"]
    assert x.tolerance_passed and not w.tolerance_passed
    assert w.max_abs_diff_fp64 > w.allowed_err_fp64  # the more lenient allowance, exceeded
    assert found["grad_tolerance_passed"] is False
    assert found["grad_max_abs_diff_fp64"] == w.max_abs_diff_fp64
    assert found["grad_allowed_err_fp64"] == w.allowed_err_fp64


def test_a_nan_gradient_is_not_timed_and_says_which_gradient():
    work = _work()
    made = _prepared(work)

    class Poisoned(torch.autograd.Function):
        @staticmethod
        def forward(ctx, w):
            return w.view_as(w)

        @staticmethod
        def backward(ctx, grad):
            return grad.clone().index_fill_(0, torch.tensor([3]), float("nan"))

    found = grads.checks(_step(work, lambda x, w: _norm(x, Poisoned.apply(w))), made)
    said = found["not_timed"]
    assert said.startswith("gradient of w: 1 of 32 gradient values are NaN or infinite")
    assert (
        found["grad_tolerance_passed"] is False and found["grad_tolerance_rule"] == "finite output"
    )


def test_a_missing_gradient_fails_without_stopping_the_timing():
    work = _work()
    made = _prepared(work)
    step = _step(work, lambda x, w: _norm(x, w.detach()) + 0 * x)  # w gets no gradient
    found = grads.checks(step, made)
    w = found["grad_checks"][1]
    assert (w.tolerance_rule, w.tolerance_passed) == (grads.MISSING, False)
    assert "not_timed" not in found


def test_input_names_are_fn_s_parameters():
    assert grads.input_names(_norm, (0, 1)) == ("x", "w")
    assert grads.input_names(lambda *args: None, (0, 2)) == ("input 0", "input 2")


def _tanh_mul(x, w):
    return (x * w).tanh()


def test_the_pack_hook_counts_each_saved_tensor_and_each_storage_once():
    work = _work(_tanh_mul)
    step = training.step(work.fn, work.inputs, "fwd_bwd")
    step()
    found = saved.count(step)
    x, w = work.inputs
    # mul saves x and w, tanh its output: three tensors; the output is the only activation
    assert found["tensors"] == 3
    out_bytes = x.numel() * x.element_size()
    assert found["bytes"] == out_bytes + w.numel() * w.element_size() + out_bytes
    assert found["activation_bytes"] == out_bytes
    # the backward ran and freed them: the step's gradients are there, as after any call
    assert all(g is not None for g in step.grads())


def test_a_forward_that_saves_nothing_counts_nothing():
    work = _work(lambda x, w: x + w)
    step = training.step(work.fn, work.inputs, "fwd_bwd")
    step()
    assert saved.count(step) == {"tensors": 0, "bytes": 0, "activation_bytes": 0}


def test_two_views_of_one_input_count_its_storage_once_and_as_no_activation():
    x = torch.ones(4, 8, requires_grad=True)
    log = saved.SavedLog((x,))
    with log.hooks():
        (x[:2] * x[2:]).sum()  # mul saves both halves: views of x's storage
    assert log.tensors == 2
    assert log.bytes == 4 * 8 * 4 and log.activation_bytes == 0
