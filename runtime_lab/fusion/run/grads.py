"""Fusion's gradients: eager's and float64's once per job, each mode's judged as its output is."""

from __future__ import annotations

import inspect

from runtime_lab import passes
from runtime_lab.fusion.result import GradCheck
from runtime_lab.fusion.run import correctness
from runtime_lab.lab import training
from runtime_lab.spec import RunSpec
from runtime_lab.workloads import ops

MISSING = "gradient missing"  # the rule of a gradient autograd did not give (float64's did)


def prepare(spec: RunSpec, made: dict) -> None:
    """With a backward: eager's gradients, the float64 ones and each gradient's reduction
    lengths, into made["grads"], before any mode runs. A workload that cannot be
    differentiated (no floating input, a custom op without an autograd formula) raises
    NotDifferentiable here, in one line."""
    if not passes.has_backward(passes.of(spec)):
        return
    work = made["work"]
    indices = training.grad_indices(work.module, work.inputs)
    eager = training.Step(work.fn, work.inputs, indices, "fwd_bwd")
    try:
        out = eager()
    except RuntimeError as exc:  # e.g. "no autograd formula was registered" for a custom op
        first = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__
        raise training.NotDifferentiable(
            f"{work.name} cannot be differentiated: {first}; allowed pass: fwd"
        ) from None
    made["grads"] = {
        "eager": tuple(None if g is None else g.detach() for g in eager.grads()),
        "ref64": _reference(work, indices, eager.grads_out),
        "names": input_names(work.fn, indices),
        "reductions": ops.grad_reduction_lengths(work, indices, out),
        "dtype": spec.dtype,
    }
    # the step's bytes model besides what is saved: grad_output read, each gradient written
    made["step_bytes"] = {
        "grad_output_bytes": sum(_nbytes(g) for g in eager.grads_out),
        "grad_bytes": sum(_nbytes(g) for g in eager.grads() if g is not None),
    }


def _nbytes(t) -> int:
    return t.numel() * t.element_size()


def input_names(fn, indices: tuple[int, ...]) -> tuple[str, ...]:
    """The differentiated inputs as fn's parameters name them ("x", "w"), else "input i"."""
    try:
        params = [
            p.name
            for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
    except (TypeError, ValueError):  # a builtin or a callable without a signature
        params = []
    return tuple(params[i] if i < len(params) else f"input {i}" for i in indices)


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


def judge(name: str, got, eager, ref64, dtype: str, reductions, atol: float) -> GradCheck:
    """One gradient under the forward's rules (correctness.check) over its own reductions; a
    gradient that cannot be judged (NaN, another shape, none given) fails with the problem."""
    if got is None:
        return GradCheck(name, tolerance_rule=MISSING, tolerance_passed=False, problem=MISSING)
    # an eager without this gradient vouches for nothing: its error counts as none
    found = correctness.check(
        got, ref64 if eager is None else eager, ref64, dtype, reductions, atol
    )
    problem = found["not_timed"]
    return GradCheck(
        name=name,
        max_abs_diff_fp64=found.get("max_abs_diff_fp64"),
        rel_err_fp64=found.get("rel_err_fp64"),
        allowed_err_fp64=found.get("allowed_err_fp64"),
        tolerance_rule=found["tolerance_rule"],
        tolerance_passed=found["tolerance_passed"],
        reduction_lengths=tuple(reductions),
        problem=problem.replace("output", "gradient", 1) if problem else None,
    )


def deciding(judged: tuple[GradCheck, ...]) -> GradCheck | None:
    """The gradient a mode's summary quotes: the first that cannot be judged, else the one
    closest to (or furthest over) its allowance."""
    for check in judged:
        if check.problem:
            return check
    ratios = [
        (c.max_abs_diff_fp64 / max(c.allowed_err_fp64, 1e-300), c)
        for c in judged
        if c.max_abs_diff_fp64 is not None and c.allowed_err_fp64 is not None
    ]
    return max(ratios, key=lambda pair: pair[0])[1] if ratios else None


def checks(fn, made: dict) -> dict:
    """ModeResult's gradient fields for a mode's callable (its last call's gradients): each
    gradient float64 has judged (GradCheck), and the deciding one's error, allowance and rule;
    a gradient that is NaN or infinite where float64's is finite, or of another shape, also
    sets `not_timed` (as such an output does). {} for the forward alone."""
    if not isinstance(fn, training.Step) or "grads" not in made:
        return {}
    _, atol = made["tolerance"]
    grads = made["grads"]
    rows = zip(
        grads["names"], fn.grads(), grads["eager"], grads["ref64"], grads["reductions"], strict=True
    )
    judged = tuple(
        judge(name, got, eager, ref, grads["dtype"], lengths, atol)
        for name, got, eager, ref, lengths in rows
        if ref is not None  # an input the output does not depend on has no gradient to judge
    )
    worst = deciding(judged)
    if worst is None:
        return {}
    unusable = next((c for c in judged if c.problem and c.tolerance_rule != MISSING), None)
    found = {
        "grad_checks": judged,
        "grad_max_abs_diff_fp64": worst.max_abs_diff_fp64,
        "grad_rel_err_fp64": worst.rel_err_fp64,
        "grad_allowed_err_fp64": worst.allowed_err_fp64,
        "grad_tolerance_rule": worst.tolerance_rule,
        "grad_tolerance_passed": all(c.tolerance_passed for c in judged),
    }
    if unusable is not None:
        found["not_timed"] = f"gradient of {unusable.name}: {unusable.problem}"
    return found
