"""Fusion frames, charts and report from a hand-made CUDA-like result (no torch, no worker)."""

import pytest

from runtime_lab import registry
from runtime_lab.fusion import charts as charts_fusion
from runtime_lab.fusion import frames as ff
from runtime_lab.fusion.figures import mode_figures
from runtime_lab.fusion.result import (
    CompileLatency,
    FusionResult,
    KernelRow,
    ModeResult,
    SweepPoint,
)
from runtime_lab.results import Timing, to_plain

N = 4096 * 4096
EAGER_BYTES = 11 * 4 * N
FUSED_BYTES = 3 * 4 * N
CEILING = 4000.0
ADD = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)"
MUL = "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 3ul> >(int)"
FUSED = "triton_poi_fused_add_mul_silu_sub_0"


def _timing(label, device_ms, host_ms):
    n = len(device_ms)
    return Timing(label, "cuda-events", tuple(device_ms), tuple(host_ms), 900.0, 2, n, True)


def _kernel(name, total_us, calls=1.0, grid="65536x1x1"):
    return KernelRow(name, calls, total_us, total_us / calls, 7, grid, "128x1x1", 24)


COLD = CompileLatency(
    "cold", 10.0, 9.0, 8.0, 7.0, 6.0, 2.0, fx_cache_misses=1, aot_cache_misses=1, compiles=1
)
WARM = CompileLatency(
    "warm-cache", 0.5, 0.3, 0.2, None, None, 0.05, fx_cache_hits=1, aot_cache_hits=1, compiles=1
)
# phases left over from the warm-cache compile: longer than this call, so not its own
PROCESS = CompileLatency("warm-process", 0.001, 0.3, 0.2, None, None, 0.05, compiles=1)


def _result(trace_file=None, reduce_overhead_tolerance=True):
    eager = ModeResult(
        mode="eager",
        ran=True,
        max_abs_diff=0.0,
        max_abs_diff_fp64=2e-6,
        rel_err_fp64=1e-7,
        tolerance_passed=True,
        kernels=(
            _kernel(ADD, 1500.0, calls=2.0),
            _kernel(MUL, 800.0),
            _kernel("silu_kernel", 700.0),
        ),
        kernel_count=4.0,
        timing=_timing("eager", [3.0] * 5, [0.04] * 5),
        transfers_per_element=11,
        bytes_moved=EAGER_BYTES,
        trace_file=trace_file,
    )
    inductor = ModeResult(
        mode="inductor",
        ran=True,
        max_abs_diff=2.4e-7,
        max_abs_diff_fp64=2e-6,
        rel_err_fp64=1e-7,
        tolerance_passed=True,
        kernels=(_kernel(FUSED, 1000.0),),
        kernel_count=1.0,
        timing=_timing("inductor", [1.0] * 5, [0.9] * 5),
        transfers_per_element=3,
        bytes_moved=FUSED_BYTES,
        unique_graphs=1,
        graph_breaks=0,
        compile=(COLD, WARM, PROCESS),
        generated_code="def call(args):\n    triton_poi_fused_add_mul_silu_sub_0.run()\n",
    )
    slow = ModeResult(
        mode="inductor-reduce-overhead",
        ran=reduce_overhead_tolerance,
        max_abs_diff=0.0 if reduce_overhead_tolerance else 1.0,
        tolerance_passed=reduce_overhead_tolerance,
        error=None if reduce_overhead_tolerance else "output outside tolerance: not timed",
        kernels=(_kernel(FUSED, 4000.0),) if reduce_overhead_tolerance else (),
        kernel_count=1.0 if reduce_overhead_tolerance else None,
        timing=_timing("inductor-reduce-overhead", [4.0] * 5, [0.01] * 5)
        if reduce_overhead_tolerance
        else None,
        transfers_per_element=3,
        bytes_moved=FUSED_BYTES,
        unique_graphs=1,
        graph_breaks=1,
        break_reasons=("print() (×1)",),
        cuda_graph_compatible=False,
        cudagraph_skip="mutated inputs",
    )
    return FusionResult(
        device="cuda:0",
        dtype="float32",
        shape=(4096, 4096),
        numel=N,
        element_bytes=4,
        rtol=1.3e-6,
        atol=1e-5,
        modes=(eager, inductor, slow),
        copy_ceiling_gbps=CEILING,
        sweep=(
            SweepPoint("eager", 256, 0.01, 0.001, 11 * 4 * 256 * 256),
            SweepPoint("inductor", 256, 0.02, 0.001, 3 * 4 * 256 * 256),
            SweepPoint("eager", 4096, 3.0, 0.01, EAGER_BYTES),
            SweepPoint("inductor", 4096, 1.0, 0.01, FUSED_BYTES),
        ),
    )


def _run(result, sweep="256,4096"):
    spec = {"experiment": "fusion", "shape": [4096, 4096], "dtype": "float32"}
    spec["options"] = {"sweep": sweep}
    return {"id": 7, "status": "done", "spec": spec, "result": to_plain(result)}


def test_modes_frame_values():
    modes = ff.modes_frame(_result(), mode_figures(_result())).set_index("mode")
    assert list(modes.index) == ["eager", "inductor", "inductor-reduce-overhead"]
    assert modes.loc["inductor", "speedup_vs_eager"] == pytest.approx(3.0)
    assert modes.loc["eager", "achieved_gbps"] == pytest.approx(EAGER_BYTES / 3e-3 / 1e9)
    gbps = FUSED_BYTES / 1e-3 / 1e9
    assert modes.loc["inductor", "achieved_gbps"] == pytest.approx(gbps)
    assert modes.loc["inductor", "ceiling_pct"] == pytest.approx(100 * gbps / CEILING)
    assert modes.loc["eager", "verdict"] == "device-bound"  # 0.04 ms to issue a 3 ms call
    assert modes.loc["inductor", "verdict"] == "host-bound"  # 0.9 ms to issue a 1 ms call
    assert modes.loc["inductor", "kernels_per_call"] == 1.0
    # one kernel instead of four, yet 4 ms against eager's 3 ms
    assert bool(modes.loc["inductor-reduce-overhead", "fewer_kernels_but_slower"])
    assert not bool(modes.loc["inductor", "fewer_kernels_but_slower"])
    assert modes.loc["inductor-reduce-overhead", "speedup_vs_eager"] == pytest.approx(0.75)


def test_kernels_frame_is_long_form_with_short_names():
    kernels = ff.kernels_frame(_result())
    assert len(kernels) == 3 + 1 + 1
    eager = kernels[kernels["mode"] == "eager"].set_index("kernel")
    assert list(eager.index) == [
        "vectorized_elementwise_kernel<CUDAFunctor_add>",
        "vectorized_elementwise_kernel<MulFunctor>",
        "silu_kernel",
    ]
    assert eager["calls_per_run"].sum() == 4.0
    assert eager.loc["vectorized_elementwise_kernel<CUDAFunctor_add>", "mean_us"] == 750.0
    assert eager.iloc[0]["grid"] == "65536x1x1" and eager.iloc[0]["registers"] == 24
    assert ff.short_kernel_name(FUSED) == FUSED


def test_compile_phases_are_own_time_and_other_is_the_rest():
    phases, stale = ff.phase_seconds(COLD)
    # nested cumulative times 9 ⊇ 8 ⊇ 7 ⊇ 6 ⊇ 2 of a 10 s first call
    assert not stale
    assert phases == pytest.approx(
        {"dynamo": 1.0, "aot": 1.0, "inductor": 1.0, "codegen": 4.0, "triton": 2.0, "other": 1.0}
    )
    assert sum(phases.values()) == pytest.approx(COLD.first_call_s)
    warm, _ = ff.phase_seconds(WARM)  # cache hit: no inductor/codegen, triton inside aot
    assert warm == pytest.approx({"dynamo": 0.1, "aot": 0.15, "triton": 0.05, "other": 0.2})
    floored, _ = ff.phase_seconds(CompileLatency("cold", 1.0, dynamo_s=1.02))
    assert floored["other"] == 0.0  # timer granularity, not negative time
    process, stale = ff.phase_seconds(PROCESS)
    assert stale and process["other"] == 0.001 and process["dynamo"] == 0.0

    frame = ff.compile_frame(_result())
    assert set(frame["scenario"]) == {"cold", "warm-cache", "warm-process"}
    cold = frame[frame["scenario"] == "cold"]
    assert list(cold["phase"]) == ["dynamo", "aot", "inductor", "codegen", "triton", "other"]
    assert cold["fx_cache_misses"].iloc[0] == 1
    table = ff.compile_table(_result()).set_index("scenario")
    assert table.loc["cold", "codegen_s"] == pytest.approx(4.0)
    assert bool(table.loc["warm-process", "phases_stale"])


def test_samples_sweep_and_bytes_frames():
    samples = ff.timing_samples(_result())
    assert set(samples["label"]) == {"eager", "inductor", "inductor-reduce-overhead"}
    assert len(samples) == 3 * (5 + 5)
    sweep = ff.sweep_frame(_result()).set_index(["mode", "side"])
    assert sweep.loc[("eager", 256), "elements"] == 65536
    assert sweep.loc[("inductor", 4096), "gbps"] == pytest.approx(FUSED_BYTES / 1e-3 / 1e9)
    model = ff.bytes_frame(_result()).set_index("mode")
    assert model.loc["eager", "transfers_per_element"] == 11
    assert model.loc["inductor", "bytes_per_call"] == 3 * 4 * N


def test_evidence_checklist():
    table = ff.evidence_table(_result(), mode_figures(_result())).set_index("check")
    assert list(table.columns) == ["inductor", "inductor-reduce-overhead"]  # no eager column
    assert table.loc["cold compile", "inductor"] == "10.00 s (fresh caches)"
    assert "(hit)" in table.loc["cache persistence", "inductor"]
    assert table.loc["warm process (guards + run)", "inductor"] == "1 ms"
    counts = table.loc["compiles, FX cache hits", "inductor"]
    assert counts == "cold 1, 0 · warm-cache 1, 1 · warm-process 1, 0"
    assert table.loc["graph breaks", "inductor-reduce-overhead"] == "1: print() (×1)"
    assert table.loc["profiler kernels", "inductor"] == f"1/call: {FUSED}"
    assert table.loc["CUDA-graph compatible", "inductor-reduce-overhead"] == "no (mutated inputs)"


def test_kernel_chart_spec():
    spec = charts_fusion.kernel_chart(ff.kernels_frame(_result()), ["eager", "inductor"]).to_dict()
    bars, totals = spec["layer"]
    assert bars["mark"]["type"] == "bar" and totals["mark"]["type"] == "text"
    assert bars["encoding"]["x"]["field"] == "total_us"
    assert bars["encoding"]["color"]["field"] == "kernel"
    assert bars["encoding"]["y"]["sort"] == ["eager", "inductor"]
    tips = {t["field"] for t in bars["encoding"]["tooltip"]}
    assert {"calls_per_run", "name", "grid", "block", "registers"} <= tips


def test_compile_chart_spec():
    spec = charts_fusion.compile_chart(ff.compile_frame(_result())).to_dict()
    bars, labels = spec["layer"]
    assert bars["encoding"]["x"]["field"] == "seconds"
    assert bars["encoding"]["color"]["scale"]["domain"][-1] == "other"
    assert bars["encoding"]["y"]["sort"][0] == "inductor · cold"
    assert labels["mark"]["type"] == "text" and labels["encoding"]["text"]["field"] == "label"
    data = spec["datasets"][labels["data"]["name"]]
    assert [d["label"] for d in data] == ["10.0 s", "500 ms", "1 ms"]


def test_roofline_and_sweep_chart_specs():
    spec = charts_fusion.roofline_chart(
        ff.modes_frame(_result(), mode_figures(_result())), CEILING
    ).to_dict()
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert marks == ["bar", "text", "rule", "text"]
    assert spec["layer"][0]["encoding"]["x"]["field"] == "achieved_gbps"
    assert spec["layer"][2]["encoding"]["x"]["field"] == "ceiling_gbps"
    tips = {t["field"] for t in spec["layer"][0]["encoding"]["tooltip"]}
    assert {"transfers_per_element", "bytes_per_call", "ceiling_pct"} <= tips
    sweep = ff.sweep_frame(_result())
    time_spec = charts_fusion.sweep_time_chart(sweep).to_dict()
    assert time_spec["encoding"]["x"]["scale"]["type"] == "log"
    assert time_spec["encoding"]["y"]["scale"]["type"] == "log"
    gbps_spec = charts_fusion.sweep_gbps_chart(sweep, CEILING).to_dict()
    assert gbps_spec["layer"][0]["encoding"]["y"]["field"] == "gbps"
    assert gbps_spec["layer"][1]["mark"]["type"] == "rule"


def test_report(tmp_path):
    trace = tmp_path / "eager.json"
    trace.write_text('{"traceEvents": []}')
    rep = registry.build_report(_run(_result(trace_file=str(trace))))
    assert (
        rep.headline == "fusion cuda:0 4096x4096 float32: inductor 1 kernel vs eager 4, 3.0× faster"
    )
    assert rep.ok
    metrics = {m.label: m.value for m in rep.metrics}
    assert metrics["eager kernels/call"] == "4" and metrics["inductor kernels/call"] == "1"
    assert metrics["cold compile"] == "10.0 s" and metrics["warm-cache compile"] == "500 ms"
    assert metrics["speed-up: measured vs predicted"] == "3.00× vs 3.67×"
    assert metrics["copy ceiling"] == "4000.0 GB/s"
    assert any("inductor-reduce-overhead launches fewer kernels" in n for n in rep.notes)
    assert any("print()" in n for n in rep.notes)
    assert not any("On CPU" in n for n in rep.notes)
    assert len(rep.charts) == 6  # kernels, compile, bandwidth, time, sweep time, sweep GB/s
    titles = [t for t, _ in rep.tables]
    assert titles[0] == "Modes" and titles[-1].startswith("Evidence")
    names = [d[1] for d in rep.downloads]
    assert names == ["run-7.json", "kernels.csv", "eager-trace.json"]
    assert rep.downloads[2][2] == trace.read_bytes()
    assert rep.code[0][:2] == ("Generated code: inductor", "python")


def test_report_flags_a_mode_outside_tolerance_and_a_skipped_sweep_size():
    rep = registry.build_report(
        _run(_result(reduce_overhead_tolerance=False), sweep="256,4096,16384")
    )
    assert not rep.ok
    assert "inductor-reduce-overhead: output outside tolerance: not timed" in rep.notes
    assert any("skipped" in n and "16384" in n for n in rep.notes)


def test_graph_compatibility_not_asked_says_why_on_a_gpu():
    from runtime_lab.fusion.frames import _evidence

    result = _result()
    figures = {f["mode"]: f for f in mode_figures(result)}
    inductor = next(m for m in result.modes if m.mode == "inductor")
    assert result.device.startswith("cuda")
    row = _evidence(inductor, figures["inductor"])
    assert row["CUDA-graph compatible"] == "n/a (not a CUDA-graph mode)"
