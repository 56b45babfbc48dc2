"""The kernel diff of compare (issue 40, item 1): kernels matched by name or source ops, from
recorded fusion results (a real H200 trace's kernels and Triton kernel, CPU profiler ops)."""

from __future__ import annotations

import gzip
from dataclasses import replace
from pathlib import Path

import fusiondata
from comparedata import CPU_FUSION, CPU_STREAMS, legacy_runs, numbered

from runtime_lab.compare import comparison
from runtime_lab.compare import kernels as kd
from runtime_lab.compiler import log as compile_log
from runtime_lab.compiler import provenance
from runtime_lab.compiler.log import CompileEvidence
from runtime_lab.fusion.report.compare import kernels

TRACE = Path(__file__).parents[1] / "fixtures" / "compile" / "h200-fusion-inductor-256.log.gz"


def _h200_evidence(tmp_path) -> CompileEvidence:
    log = tmp_path / "h200.log"
    log.write_bytes(gzip.decompress(TRACE.read_bytes()))
    return CompileEvidence(kernels=provenance.kernel_sources(compile_log.read(log)))


def test_inductor_fuses_eagers_cuda_kernels_joined_to_its_source_line(tmp_path):
    eager, inductor, _ = fusiondata.result().modes
    inductor = replace(inductor, compile_evidence=_h200_evidence(tmp_path))
    base = kernels(replace(fusiondata.result(), modes=(eager,)))
    other = kernels(replace(fusiondata.result(), modes=(inductor,)))
    (mode,) = kd.diff_modes(base, other)
    assert (mode.a_mode, mode.b_mode) == ("eager", "inductor")  # the two that differ pair up
    (fused,) = mode.matched
    assert fused.how == kd.FUSED and not mode.only_a and not mode.only_b
    # eager's add (a CUDAFunctor), mul (a MulFunctor in a BinaryFunctor) and silu_kernel
    assert {kd.ops_of(k)[0] for k in fused.a} == {
        frozenset({"add"}),
        frozenset({"mul"}),
        frozenset({"silu"}),
    }
    (triton,) = fused.b
    assert kd.ops_of(triton) == (frozenset({"add", "silu", "sub", "mul"}), "provenance")
    assert triton.source_lines == ("workload.py:10  return F.silu(x + y) * (x - y)",)
    assert triton.launch == "grid 65536x1x1 · block 128x1x1 · 24 regs"
    assert fused.ratio == 1000.0 / (1500.0 + 800.0 + 700.0)  # per call of the workload
    row = kd.frame(kd.KernelDiff("#1", "#2", (), (mode,))).iloc[0]
    assert row["match"] == "fused 3 → 1" and row["#2 ÷ #1"] == fused.ratio
    assert "workload.py:10" in row["source"]


def test_max_autotune_matches_inductors_kernel_by_name_with_its_own_config():
    _, inductor, tuned = fusiondata.with_resources().modes
    a = kernels(replace(fusiondata.with_resources(), modes=(inductor,)))
    b = kernels(replace(fusiondata.with_resources(), modes=(tuned,)))
    (mode,) = kd.diff_modes(a, b)
    (same,) = mode.matched
    assert same.how == kd.SAME_NAME
    assert same.a[0].launch.endswith("XBLOCK=1024, num_warps=4")
    assert same.b[0].launch.startswith("grid 65536x1x1") and "XBLOCK=256" in same.b[0].launch


def test_names_normalise_across_backends_and_compiles():
    cpp = kd.Kernel("inductor", "graph_0_cpp_fused_add_mean_mul_pow_rsqrt_0", 2.0, 1.0)
    triton = kd.Kernel("inductor", "triton_red_fused_add_mean_mul_pow_rsqrt_1", 1.0, 1.0)
    assert kd.canonical(cpp.name) == "cpp_fused_add_mean_mul_pow_rsqrt"
    (found,), only_a, only_b = kd.match([cpp], [triton])
    assert found.how == kd.SAME_OPS and not only_a and not only_b
    assert kd.name_ops("aten::_to_copy") == {"to", "copy"} and kd.name_ops("aten::div_") == {"div"}
    assert kd.name_ops("sm90_xmma_gemm_bf16bf16_bf16f32") == {"mm"}
    # an unrelated kernel stays on its own side
    _, only_a, only_b = kd.match([cpp], [kd.Kernel("m", "aten::softmax", 1.0, 1.0)])
    assert [k.name for k in only_a] == [cpp.name] and [k.name for k in only_b] == ["aten::softmax"]


def test_compare_of_two_cpu_fusion_runs_carries_a_kernel_diff_and_streams_none():
    runs = legacy_runs()
    cpu = numbered(runs[CPU_FUSION], 1)
    fewer = numbered(cpu, 2)
    fewer.spec["options"]["modes"] = "eager,dynamo-eager"
    fewer.result["modes"] = [m for m in fewer.result["modes"] if m["mode"] != "inductor"]
    view = comparison.build([cpu, fewer])
    (found,) = view.kernel_diffs
    assert found.fields == (("option modes", "eager,inductor,dynamo-eager", "eager,dynamo-eager"),)
    pairs = [(m.a_mode, m.b_mode) for m in found.modes]
    assert pairs == [("eager", "eager"), ("dynamo-eager", "dynamo-eager"), ("inductor", None)]
    assert all(x.how == kd.SAME_NAME for x in found.modes[0].matched)
    assert [k.name for k in found.modes[2].only_a] == ["graph_1_cpp_fused_add_mul_silu_sub_0"]
    streams = [numbered(runs[CPU_STREAMS], 1), numbered(runs[CPU_STREAMS], 2)]
    assert comparison.build(streams).kernel_diffs == ()
