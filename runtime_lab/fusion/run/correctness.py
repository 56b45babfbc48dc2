"""A mode's output against the float64 reference: within the workload's bound, finite, or why not."""

from __future__ import annotations

import torch

from runtime_lab.workloads import tolerance

DTYPE_NAMES = {torch.float32: "float32", torch.bfloat16: "bfloat16", torch.float16: "float16"}


def coarser(dtype: str, out: torch.Tensor) -> str:
    """The run's dtype, or the output's where it rounds coarser (a float32 run, a bf16 output)."""
    found = DTYPE_NAMES.get(out.dtype, dtype)
    return max(dtype, found, key=tolerance.EPS.__getitem__)


def _worst(out: torch.Tensor, ref64: torch.Tensor, finite: torch.Tensor) -> float:
    """The largest |out − reference| where the reference is finite, in one float64 buffer."""
    diff = out.double().sub_(ref64).abs_()
    if not bool(finite.all()):
        diff.masked_fill_(~finite, 0.0)
    return diff.max().item() if diff.numel() else 0.0


def unusable(out: torch.Tensor, ref64: torch.Tensor) -> tuple[str, str] | None:
    """(rule, reason) where an output cannot be judged or timed: another shape, or NaN or
    infinite values where float64 has a number; None when it can."""
    if tuple(out.shape) != tuple(ref64.shape):
        shapes = f"{tuple(out.shape)} is not the float64 reference's {tuple(ref64.shape)}"
        return "output shape", f"output shape {shapes}"
    bad = int((~torch.isfinite(out) & torch.isfinite(ref64)).sum())
    if bad:
        where = "where float64's are finite"
        return (
            "finite output",
            f"{bad:,} of {out.numel():,} output values are NaN or infinite {where}",
        )
    return None


def check(out, eager, ref64, dtype: str, reductions: tuple[int, ...], atol: float) -> dict:
    """ModeResult's correctness fields. Passes under the first rule that holds: the float64
    bound (tolerance.allowed_error), else no further from float64 than eager is (plus
    tolerance.eager_slack): a fused kernel keeps fp32 intermediates and rounds once, so it can
    differ from eager by more than eager's error while being the more accurate of the two.
    A failure records the more lenient allowance it still exceeded. `not_timed` says why an
    output cannot be timed at all; a wrong but finite answer is timed (docs/measurement.md)."""
    found = unusable(out, ref64)
    if found:
        return {"tolerance_passed": False, "tolerance_rule": found[0], "not_timed": found[1]}
    finite = torch.isfinite(ref64)
    scale = ref64.abs().nan_to_num_(nan=0.0, posinf=0.0).max().item() if ref64.numel() else 0.0
    rounding = coarser(dtype, out)
    bound = tolerance.allowed_error(rounding, reductions, scale)
    err = _worst(out, ref64, finite)
    usable = unusable(eager, ref64) is None  # a broken eager cannot vouch for a mode
    by_eager = (
        _worst(eager, ref64, finite) + tolerance.eager_slack(rounding, scale, atol)
        if usable
        else None
    )
    allowances = {"float64 bound": bound, "no worse than eager": by_eager}
    passed = next((r for r, a in allowances.items() if a is not None and err <= a), None)
    rule = passed or max((r for r in allowances if allowances[r] is not None), key=allowances.get)
    return {
        "max_abs_diff": (out.float() - eager.float()).abs().max().item() if usable else None,
        "max_abs_diff_fp64": err,
        "rel_err_fp64": err / max(scale, 1e-30),
        "allowed_err_fp64": allowances[rule],
        "tolerance_rule": rule,
        "tolerance_passed": passed is not None,
        "not_timed": None,
    }


def one_line(error: str, limit: int = 200) -> str:
    """An exception as the headline names it: its first line, at most `limit` characters."""
    first = error.strip().splitlines()[0] if error.strip() else error
    return first if len(first) <= limit else first[: limit - 1] + "…"
