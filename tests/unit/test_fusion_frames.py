"""Fusion frames, charts and report from a hand-made CUDA-like result (no torch, no worker)."""

import pytest
from fusiondata import CEILING, COLD, EAGER_BYTES, FUSED, FUSED_BYTES, PROCESS, WARM, N
from fusiondata import result as _result
from fusiondata import run as _run

from runtime_lab import registry
from runtime_lab.fusion.report import charts as charts_fusion
from runtime_lab.fusion.report import frames as ff
from runtime_lab.fusion.report.figures import figures
from runtime_lab.fusion.result import (
    CompileLatency,
)


def test_modes_frame_values():
    modes = ff.modes_frame(_result(), figures(_result()).modes).set_index("mode")
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
    table = ff.compile_table(frame).set_index("scenario")
    assert table.loc["cold", "codegen_s"] == pytest.approx(4.0)
    assert bool(table.loc["warm-process", "phases_stale"])


def test_samples_sweep_and_bytes_model():
    samples = ff.timing_samples(_result())
    assert set(samples["label"]) == {"eager", "inductor", "inductor-reduce-overhead"}
    assert len(samples) == 3 * (5 + 5)
    sweep = ff.sweep_frame(_result()).set_index(["mode", "side"])
    assert sweep.loc[("eager", 256), "elements"] == 65536
    assert sweep.loc[("inductor", 4096), "gbps"] == pytest.approx(FUSED_BYTES / 1e-3 / 1e9)
    model = ff.modes_frame(_result(), figures(_result()).modes).set_index("mode")  # bytes model
    assert model.loc["eager", "transfers_per_element"] == 11
    assert model.loc["inductor", "bytes_per_call"] == 3 * 4 * N


def test_evidence_checklist():
    table = ff.evidence_table(_result(), figures(_result()).modes).set_index("check")
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
    assert [d["label"] for d in data] == ["10 s", "500 ms", "1 ms"]


def test_roofline_and_sweep_chart_specs():
    spec = charts_fusion.roofline_chart(
        ff.modes_frame(_result(), figures(_result()).modes), CEILING
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
    assert metrics["cold compile"] == "10 s" and metrics["warm-cache compile"] == "500 ms"
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
    result = _result()
    assert result.device.startswith("cuda")
    table = ff.evidence_table(result, figures(result).modes).set_index("check")
    assert table.loc["CUDA-graph compatible", "inductor"] == "n/a (not a CUDA-graph mode)"


def test_the_report_computes_its_figures_once(monkeypatch):
    from runtime_lab.fusion.report import figures as fusion_figures

    calls = []
    real = fusion_figures.ceiling
    monkeypatch.setattr(fusion_figures, "ceiling", lambda r: calls.append(r) or real(r))
    rep = registry.build_report(_run(_result()))
    assert len(calls) == 1 and rep.headline  # one figures object, handed down to every part


def test_a_metric_value_too_long_for_its_column_is_split_not_cut():
    from runtime_lab.view.fmt import metric_parts

    assert metric_parts("92 % (cuda-graph)") == ("92 %", "(cuda-graph)")
    assert metric_parts("0.0597× vs 0.383×") == ("0.0597×", "vs 0.383×")
    assert metric_parts("0.38× vs 3.67×") == ("0.38× vs 3.67×", "")  # fits: kept whole
    assert metric_parts("23.3 GB/s") == ("23.3 GB/s", "")
    # the allocator's and recompiles' long values: "A → B", "A · B" split the same way
    assert metric_parts("1.22 GiB → 250 MiB") == ("1.22 GiB", "→ 250 MiB")
    assert metric_parts("yes → no (without → with record_stream)") == (
        "yes → no",
        "(without → with record_stream)",
    )
    assert metric_parts("0 B · 340 MiB") == ("0 B · 340 MiB", "")  # fits: kept whole


def _swept(*points):
    from dataclasses import replace

    from runtime_lab.fusion.result import SweepPoint

    return replace(_result(), sweep=tuple(SweepPoint(*p[:5], None, *p[5:]) for p in points))


def test_a_reused_function_that_turned_dynamic_is_named_with_its_cost():
    """The recompile trap: the report says from which size a dynamic kernel served the reused
    function, and what it cost against the static kernel compiled for the same size."""
    from runtime_lab.fusion.report import sweep as sweep_notes

    result = _swept(
        ("eager", 256, 0.01, 0.001, 100),
        ("inductor", 256, 0.02, 0.001, 100, "fresh", "static"),
        ("inductor", 256, 0.02, 0.001, 100, "reuse", "static"),
        ("inductor", 4096, 1.0, 0.01, 100, "fresh", "static"),
        ("inductor", 4096, 1.25, 0.01, 100, "reuse", "dynamic"),
    )
    said = sweep_notes.notes(result)
    assert "a dynamic kernel served inductor from 4096² on" in said[0]
    assert "each size's compiled points timed a static kernel" in said[1]
    assert (
        "took 1.25× the time of the static kernel" in said[2] and "1 size and mode pairs" in said[2]
    )
    frame = ff.sweep_frame(result)
    assert list(frame["line"]) == [
        "eager",
        "inductor · fresh",
        "inductor · reuse",
        "inductor · fresh",
        "inductor · reuse",
    ]
    assert list(frame["kernel"]) == ["—", "static", "static", "static", "dynamic"]
    spec = charts_fusion.sweep_time_chart(frame).to_dict()
    assert spec["encoding"]["strokeDash"]["field"] == "compiled"
    assert spec["encoding"]["shape"]["field"] == "kernel"
    assert spec["encoding"]["detail"]["field"] == "line"
    report = registry.build_report(_run(result, "256,4096"))
    assert any("dynamic kernel served inductor from 4096²" in n for n in report.notes)


def test_a_reuse_that_stayed_static_and_an_old_sweep_say_so():
    from runtime_lab.fusion.report import sweep as sweep_notes

    static = _swept(
        ("inductor", 256, 0.02, 0.001, 100, "reuse", "static"),
        ("inductor", 4096, 1.0, 0.01, 100, "reuse", "static"),
    )
    assert "each size compiled a static kernel" in sweep_notes.notes(static)[0]
    assert len(sweep_notes.notes(static)) == 1  # no fresh points: no cost to state
    old = _result()  # points recorded before the lab said which kernel served them
    assert "may have timed one dynamic kernel" in sweep_notes.notes(old)[0]
    eager_only = _swept(("eager", 256, 0.01, 0.001, 100))
    assert sweep_notes.notes(eager_only) == []
