"""The float64 bound (issue 41): a bf16 GEMM chain passes at the error its roundings make, a
wrong answer fails, float32 is tight; the rule that decided and the allowance are recorded."""

from types import SimpleNamespace

import pytest
import torch
import torch.nn.functional as F

from runtime_lab.fusion.run import correctness
from runtime_lab.workloads import ops, tolerance
from runtime_lab.workloads.registry import op_module

TOKENS, HIDDEN, INTER = 16, 512, 14336  # Llama-3-8B's down projection: K = 14336
BF16 = torch.bfloat16


@pytest.fixture(scope="module")
def chain():
    """A SwiGLU MLP's inputs in bf16 and its float64 answer."""
    gen = torch.Generator().manual_seed(0)

    def weight(rows, cols):
        return (torch.randn(rows, cols, generator=gen) * cols**-0.5).to(BF16)

    x = torch.randn(TOKENS, HIDDEN, generator=gen).to(BF16)
    w = weight(INTER, HIDDEN), weight(INTER, HIDDEN), weight(HIDDEN, INTER)
    x64, (g64, u64, d64) = x.double(), (t.double() for t in w)
    ref = (F.silu(x64 @ g64.T) * (x64 @ u64.T)) @ d64.T
    return x, w, ref


def _mm(a, b, dtype=BF16):
    """A GPU GEMM's arithmetic: float32 accumulation, one rounding of the output."""
    return (a.float() @ b.float().T).to(dtype)


def _eager(x, w):
    """Eager on a GPU: every op writes its output in bf16."""
    g, u = _mm(x, w[0]), _mm(x, w[1])
    return _mm((F.silu(g.float()).to(BF16).float() * u.float()).to(BF16), w[2])


def _fused(x, w):
    """Inductor: silu(gate)·up in float32 in one kernel, rounded once."""
    g, u = _mm(x, w[0]), _mm(x, w[1])
    return _mm((F.silu(g.float()) * u.float()).to(BF16), w[2])


def _check(out, eager, ref, dtype="bfloat16", reductions=(HIDDEN, INTER)):
    return correctness.check(out, eager, ref, dtype, reductions, 1e-5)


def test_the_epsilons_are_torchs():
    for name, eps in tolerance.EPS.items():
        assert eps == torch.finfo(ops.DTYPES[name]).eps


def test_a_bf16_gemm_chain_passes_at_its_real_error_where_the_old_rule_failed(chain):
    """The H100's swiglu_mlp: fused and eager differ by an ulp of the largest outputs, which an
    elementwise rtol against eager rejects at the small ones; both are as close to float64 as
    bf16 allows."""
    x, w, ref = chain
    eager, fused = _eager(x, w), _fused(x, w)
    assert not torch.allclose(fused, eager, rtol=1.6e-2, atol=1e-5)  # the rule before issue 41
    for out in (eager, fused):
        found = _check(out, eager, ref)
        assert found["tolerance_passed"] and found["tolerance_rule"] == "float64 bound"
        assert found["max_abs_diff_fp64"] < found["allowed_err_fp64"] / 2  # with room to spare
    scale = ref.abs().max().item()
    expected = 2 * (2**-7 + 2**-23 * (HIDDEN + INTER) ** 0.5) * scale
    assert _check(fused, eager, ref)["allowed_err_fp64"] == pytest.approx(expected)


def test_a_wrong_bf16_answer_fails(chain):
    """A dropped term (half the down projection's reduction, as a split-K that lost a partial
    sum; silu left out) and a 5 % scale: outside the bound and worse than eager."""
    x, w, ref = chain
    eager = _eager(x, w)
    g, u = _mm(x, w[0]), _mm(x, w[1])
    h = (F.silu(g.float()) * u.float()).to(BF16)
    half = INTER // 2
    wrong = {
        "half the reduction": _mm(h[:, :half], w[2][:, :half]),
        "no silu": _mm((g.float() * u.float()).to(BF16), w[2]),
        "5 % too large": (_fused(x, w).float() * 1.05).to(BF16),
    }
    for name, out in wrong.items():
        found = _check(out, eager, ref)
        assert not found["tolerance_passed"], name
        assert found["max_abs_diff_fp64"] > found["allowed_err_fp64"], name
        assert found["not_timed"] is None, name  # finite: it is timed, and flagged


def test_float32_is_tight(chain):
    """In float32 the bound is about 3e-5 of the largest output at K = 14848: the real error
    passes; 1.01 × the answer, or 1e-4 too large, fails."""
    x, w, ref = chain
    exact = _mm(x, w[0], torch.float32), _mm(x, w[1], torch.float32)
    out = (F.silu(exact[0]) * exact[1]) @ w[2].float().T
    found = _check(out, out, ref, "float32")
    assert found["tolerance_passed"] and found["tolerance_rule"] == "float64 bound"
    assert found["allowed_err_fp64"] / ref.abs().max().item() < 4e-5
    for factor in (1.01, 1.0001):
        wrong = _check(out * factor, out, ref, "float32")
        assert not wrong["tolerance_passed"], factor


def test_no_worse_than_eager_is_the_second_rule_and_a_failure_records_the_larger_allowance():
    ref = torch.linspace(-1, 1, 1000, dtype=torch.float64)
    eager = (ref + 0.2).float()  # eager itself far from float64: a workload the bound misjudges
    same = _check(eager.clone(), eager, ref, "float32", ())
    assert same["tolerance_passed"] and same["tolerance_rule"] == "no worse than eager"
    assert same["allowed_err_fp64"] == pytest.approx(0.2 + 1e-5, rel=1e-6)
    worse = _check((ref + 0.3).float(), eager, ref, "float32", ())
    assert not worse["tolerance_passed"] and worse["tolerance_rule"] == "no worse than eager"
    assert worse["allowed_err_fp64"] == pytest.approx(0.2 + 1e-5, rel=1e-6)


def test_nan_infinity_and_another_shape_are_not_timed_with_one_line():
    ref = torch.ones(4, 8, dtype=torch.float64)
    eager = ref.float()
    nan = eager.clone()
    nan[0, :3] = float("nan")
    found = _check(nan, eager, ref, "float32", (8,))
    assert not found["tolerance_passed"] and found["tolerance_rule"] == "finite output"
    assert (
        found["not_timed"] == "3 of 32 output values are NaN or infinite where float64's are finite"
    )
    shaped = _check(eager.reshape(8, 4), eager, ref, "float32", (8,))
    assert shaped["not_timed"] == "output shape (8, 4) is not the float64 reference's (4, 8)"
    # infinity where float64 has it too is no fault of the mode
    ref[1, 1], inf = float("inf"), eager.clone()
    inf[1, 1] = float("inf")
    assert _check(inf, inf, ref, "float32", (8,))["tolerance_passed"]


def test_a_bf16_output_of_a_float32_run_is_judged_at_bf16():
    assert correctness.coarser("float32", torch.ones(1, dtype=BF16)) == "bfloat16"
    assert correctness.coarser("bfloat16", torch.ones(1)) == "bfloat16"


def test_workloads_declare_their_reductions_and_a_users_default_is_the_last_dim():
    swiglu = op_module("swiglu_mlp").reduction_lengths((4096, 4096), {"intermediate": 14336})
    assert swiglu == (4096, 14336)
    block = op_module("transformer_block").reduction_lengths(
        (1, 2048, 4096), {"heads": 32, "intermediate": 14336}
    )
    assert block == (4096, 4096, 128, 2048, 2048, 4096, 4096, 4096, 14336)
    assert op_module("pointwise").reduction_lengths((64, 64), {}) == ()
    assert op_module("softmax").reduction_lengths((8, 4096), {}) == (4096, 4096)
    users = ops.Loaded("mine", SimpleNamespace(), (16, 256), {}, ())
    assert ops.reduction_lengths(users) == (256,)
    assert tolerance.formula_text("bfloat16", (4096, 14336)).endswith("K = 4096 + 14336")


def test_an_exception_is_named_by_its_first_line():
    error = "BackendCompilerFailed: backend='inductor' raised:\nRuntimeError: boom\n" + "x" * 500
    assert correctness.one_line(error) == "BackendCompilerFailed: backend='inductor' raised:"
    assert correctness.one_line("E" * 300) == "E" * 199 + "…"


def test_rms_norm_keeps_float64_so_the_reference_is_not_rounded_to_float32():
    from runtime_lab.workloads.rms_norm.op import EPS, rms_norm

    x = torch.randn(8, 64, dtype=torch.float64)
    w = 1 + 0.1 * torch.randn(64, dtype=torch.float64)
    exact = w * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS))
    assert rms_norm(x, w).dtype == torch.float64
    assert (rms_norm(x, w) - exact).abs().max().item() < 1e-14  # float32 would be ~1e-7
    low, lw = x.bfloat16(), w.bfloat16()  # bf16: Llama's float32 upcast, as before
    x32 = low.float()
    llama = lw * (x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + EPS)).to(torch.bfloat16)
    assert torch.equal(rms_norm(low, lw), llama)
