"""Fusion's gradients: eager's and float64's once per job, each mode's against them."""

from __future__ import annotations

import torch

from runtime_lab import passes
from runtime_lab.lab import training
from runtime_lab.spec import RunSpec

PASS_NOTE = (
    "Pass {step}: each mode's time is the training step's; its bytes model (GB/s, roofline, "
    "transfers per element) is still the forward's, so read those figures as the forward's "
    "bytes over the step's time. The kernels are split by pass (forward_kernels, "
    "backward_kernels in the JSON)."
)


def prepare(spec: RunSpec, made: dict) -> None:
    """With a backward: eager's gradients and the float64 ones, into made["grads"], before any
    mode runs. A workload that cannot be differentiated (no floating input, a custom op
    without an autograd formula) raises NotDifferentiable here, in one line."""
    if not passes.has_backward(passes.of(spec)):
        return
    work = made["work"]
    indices = training.grad_indices(work.module, work.inputs)
    eager = training.Step(work.fn, work.inputs, indices, "fwd_bwd")
    try:
        eager()
    except RuntimeError as exc:  # e.g. "no autograd formula was registered" for a custom op
        first = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__
        raise training.NotDifferentiable(
            f"{work.name} cannot be differentiated: {first}; allowed pass: fwd"
        ) from None
    made["grads"] = {
        "eager": tuple(g.detach() for g in eager.grads()),
        "ref64": _reference(work, indices, eager.grads_out),
    }
    made["notes"].append(PASS_NOTE.format(step=passes.of(spec)))


def _reference(work, indices: tuple[int, ...], grads_out) -> tuple:
    """float64 gradients from the op module's reference, else (a reference that cannot be
    differentiated) from fn over float64 inputs."""
    reference = getattr(work.module, "reference", None)
    if reference is not None:
        try:
            return training.reference_grads(reference, work.inputs, indices, grads_out)
        except (RuntimeError, training.NotDifferentiable):
            pass  # e.g. a reference written with in-place ops on its inputs
    return training.reference_grads(work.fn, work.inputs, indices, grads_out)


def checks(fn, made: dict) -> dict:
    """A mode's gradients (the callable's last call) against float64 and against eager: the
    largest absolute difference to float64 over every gradient, relative to the largest
    float64 gradient, and whether each is within tolerance of eager's or no further from
    float64 than eager's is (the forward's rule). {} for the forward alone."""
    if not isinstance(fn, training.Step) or "grads" not in made:
        return {}
    rtol, atol = made["tolerance"]
    got, eager, ref64 = fn.grads(), made["grads"]["eager"], made["grads"]["ref64"]
    if any(g is None for g in got):
        return {"grad_tolerance_passed": False}
    diffs = [(g.double() - r).abs().max().item() for g, r in zip(got, ref64, strict=True)]
    eager_diffs = [(e.double() - r).abs().max().item() for e, r in zip(eager, ref64, strict=True)]
    scale = max(r.abs().max().item() for r in ref64)
    close = all(
        torch.allclose(g, e, rtol=rtol, atol=atol) or d <= ed + atol
        for g, e, d, ed in zip(got, eager, diffs, eager_diffs, strict=True)
    )
    return {
        "grad_max_abs_diff_fp64": max(diffs),
        "grad_rel_err_fp64": max(diffs) / max(scale, 1e-30),
        "grad_tolerance_passed": close,
    }
