"""How far from the float64 reference an output may be: the dtype, the reduction lengths, the scale."""

from __future__ import annotations

import math

# machine epsilon (the gap above 1.0) per dtype, as torch.finfo(dtype).eps gives it
EPS = {"float32": 2.0**-23, "bfloat16": 2.0**-7, "float16": 2.0**-10}
# bf16 and fp16 reductions and GEMMs accumulate in float32 (eager's, cuBLAS's, Inductor's)
ACCUMULATOR = "float32"
# Measured on the catalog (CPU shapes, eager and Inductor; a GPU's bf16 GEMM arithmetic
# emulated at Llama's K): correct answers use at most 0.5 of the bound with C = 2, compiled
# ones at most 0.28, but for long-chain's eager in bf16/fp16 (0.70: 62 roundings in the
# dtype). docs/measurement.md#correct-before-timed-the-float64-bound
C = 2.0
RULES = ("float64 bound", "no worse than eager")


def reduction_length(reductions: tuple[int, ...]) -> int:
    """K: every reduction on an output element's path, summed (the accumulation errors of a
    chain add in quadrature: eps·√K1 ⊕ eps·√K2 = eps·√(K1 + K2))."""
    return sum(reductions)


def allowed_error(dtype: str, reductions: tuple[int, ...], scale: float) -> float:
    """C · (eps(dtype) + eps(float32) · √K) · scale, scale = max |reference|: the output's
    roundings in its dtype, and its reductions' accumulation error in float32."""
    k = reduction_length(reductions)
    return C * (EPS[dtype] + EPS[ACCUMULATOR] * math.sqrt(k)) * scale


def eager_slack(dtype: str, scale: float, atol: float) -> float:
    """What 'no worse than eager' allows above eager's own error: one epsilon of the largest
    output (another kernel may round it the other way), or the workload's atol if larger."""
    return max(atol, EPS[dtype] * scale)


def formula_text(dtype: str, reductions: tuple[int, ...]) -> str:
    """The bound as a run applies it, in words and numbers."""
    k = reduction_length(reductions)
    terms = " + ".join(map(str, reductions)) if len(reductions) > 1 else str(k)
    return (
        f"{C:g} · (eps({dtype}) {EPS[dtype]:.3g} + eps(float32) {EPS[ACCUMULATOR]:.3g} · √K) · "
        f"max |float64 output|, K = {terms}"
    )
