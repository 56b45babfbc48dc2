"""Kernel resources and occupancy: the calculator by hand, recorded H200 traces, frames, chart, report."""

import json
import math
from dataclasses import replace
from types import SimpleNamespace

import pandas as pd
import pytest
from fusiondata import CHAIN_FUSED as FUSED
from fusiondata import run as _run
from fusiondata import with_clocks as _new
from fusiondata import with_resources as _resources_result
from h200data import H200, TRACES
from h200data import device_limits as _h200
from h200data import trace as _trace
from streamlit.testing.v1 import AppTest

from runtime_lab import registry
from runtime_lab.compiler import occupancy as oc
from runtime_lab.fusion.report import kernel_table as fk
from runtime_lab.fusion.report import kernel_views as rk
from runtime_lab.fusion.report.occupancy_chart import occupancy_chart
from runtime_lab.fusion.result import EAGER_TRANSFERS, FusionResult
from runtime_lab.results import KernelRow, TritonKernel, from_plain, to_plain
from runtime_lab.workloads.registry import NAMES as WORKLOADS

# H100/H200 (9.0), limits as the trace reports them: 64 warps, 32 blocks, 65536 registers per SM
# (4 sub-partitions of 16384, allocated per warp in units of 256), 228 KiB of shared memory per SM,
# 227 KiB per block with opt-in, 1 KiB reserved per block, allocated in units of 128 bytes.
HAND = [
    # 128 threads = 4 warps; 32 regs × 32 threads = 1024 per warp (a whole number of units);
    # 16384 / 1024 = 16 warps per sub-partition → 64 per SM → 64 / 4 = 16 blocks; warps: 64 / 4 =
    # 16 blocks; smem: (0 + 1024) / 128 → 1024 → 233472 / 1024 = 228; cap 32. 16 blocks × 4 warps
    # = 64 warps = 100 %, warps and registers tie (the block cap of 32 never binds here).
    ((128, 32, 0), 16, 100.0, "warps/threads + registers"),
    # 8 warps; 128 × 32 = 4096 per warp; 16384 / 4096 = 4 per sub-partition → 16 warps → 2 blocks
    # (warps would allow 8): 16 / 64 = 25 %, registers.
    ((256, 128, 0), 2, 25.0, "registers"),
    # 4 warps, 32 regs (16 blocks as above); smem 49152 + 1024 = 50176 (392 units of 128) →
    # 233472 / 50176 = 4.65 → 4 blocks: 16 warps = 25 %, shared memory.
    ((128, 32, 48 * 1024), 4, 25.0, "shared memory"),
    # 32 warps; 64 × 32 = 2048 per warp; 16384 / 2048 = 8 per sub-partition → 32 warps → 1 block
    # (warps: 64 / 32 = 2): 32 / 64 = 50 %, registers. Per block 2048 × 32 = 65536: just fits.
    ((1024, 64, 0), 1, 50.0, "registers"),
    # 44 regs × 32 = 1408 → 1536 per warp (rounded to 256); 16384 / 1536 = 10 per sub-partition →
    # 40 warps → 40 / 8 = 5 blocks: 40 / 64 = 62.5 % (the H200 trace's distribution kernel).
    ((256, 44, 0), 5, 62.5, "registers"),
    # 1 warp per block: warps allow 64, registers 64, the cap 32 binds: 32 warps = 50 %.
    ((32, 32, 0), 32, 50.0, "blocks per SM"),
    # 65 × 32 = 2080 → 2304 per warp × 32 warps = 73728 > 65536 registers per block: no block
    # fits (the launch would fail with too many resources requested).
    ((1024, 65, 0), 0, 0.0, "registers"),
]


@pytest.mark.parametrize(("launch", "blocks", "pct", "limiting"), HAND)
def test_occupancy_by_hand_on_the_h200(launch, blocks, pct, limiting):
    found = oc.occupancy(_h200(), *launch)
    assert (found.blocks_per_sm, found.occupancy_pct, found.limiting) == (blocks, pct, limiting)
    assert found.warps_per_sm == blocks * -(-launch[0] // 32)


def test_occupancy_by_hand_on_other_architectures():
    ampere = oc.device_limits("8.6", "A10", 72)  # 48 warps, 16 blocks, 100 KiB per SM
    # 256 threads = 8 warps: warps 48 / 8 = 6 blocks; 32 regs: 64 warps → 8 blocks: 6 × 8 = 48
    found = oc.occupancy(ampere, 256, 32)
    assert (found.blocks_per_sm, found.occupancy_pct, found.limiting) == (6, 100.0, "warps/threads")
    # 40 KiB + 1 KiB = 41984 → 102400 / 41984 = 2 blocks of 4 warps = 8 / 48 warps
    found = oc.occupancy(ampere, 128, 32, 40 * 1024)
    assert (found.blocks_per_sm, found.limiting) == (2, "shared memory")
    assert found.occupancy_pct == pytest.approx(100 * 8 / 48)
    turing = oc.device_limits("7.5", "T4", 40)  # 32 warps, 16 blocks, no reserved shared memory
    found = oc.occupancy(turing, 32, 16)  # 1 warp: the 16-block cap gives 16 of 32 warps
    assert (found.blocks_per_sm, found.occupancy_pct, found.limiting) == (16, 50.0, "blocks per SM")
    assert found.smem_per_block_bytes == 0 and found.by_smem is None  # 7.x reserves nothing
    assert oc.occupancy(turing, 2048, 16).blocks_per_sm == 0  # over 1024 threads per block


def test_the_table_matches_what_the_h200_reported():
    reported = _h200()
    table = oc.device_limits("9.0", "NVIDIA H200", 132)
    for field in reported.reported:
        assert getattr(table, field) == getattr(reported, field), field
    assert reported.max_warps_per_sm == 64 and reported.sm_count == 132
    assert oc.arch_for("9.0") == "9.0" and oc.arch_for("8.7") == "8.7"
    assert oc.arch_for("9.1") == "9.0" and oc.arch_for("11.0") is None
    assert oc.device_limits("6.1", "P4", 20) is None  # no table row: no occupancy, not a guess
    assert set(oc.ARCHS) >= {"7.0", "7.5", "8.0", "8.6", "8.9", "9.0", "10.0"}


def _kernel_events(name: str) -> list[dict]:
    return [e for e in _trace(name)["traceEvents"] if e.get("cat") == "kernel"]


def test_the_profilers_estimate_is_reproduced_for_every_recorded_h200_kernel():
    """Kineto's "est. achieved occupancy %": the same calculator with the 48 KiB default shared
    memory limit, capped at grid blocks ÷ SMs, in threads."""
    limits, seen = _h200(), 0
    for name in (*TRACES, "streams-lab-trace.json.gz"):
        for event in _kernel_events(name):
            a = event["args"]
            threads, grid = math.prod(tuple(a["block"])), math.prod(tuple(a["grid"]))
            estimate = oc.profiler_estimate(
                limits, threads, a["registers per thread"], a["shared memory"], grid
            )
            assert estimate == a["est. achieved occupancy %"], (event["name"][:60], a)
            seen += 1
    assert seen == 5 + 10 + 5 + 245


def test_a_kernel_over_48_kib_reads_0_in_the_profiler_but_not_in_theory():
    events = _kernel_events("streams-lab-trace.json.gz")
    gemm = next(e for e in events if "tilesize256x128" in e["name"])
    a = gemm["args"]
    assert (a["registers per thread"], a["shared memory"], a["block"]) == (254, 67584, [256, 1, 1])
    assert a["est. achieved occupancy %"] == 0
    # 254 × 32 = 8128 → 8192 per warp; 16384 / 8192 = 2 per sub-partition → 8 warps → 1 block of
    # 8 warps: 12.5 %; smem 67584 + 1024 = 68608 → 233472 / 68608 = 3 blocks (with opt-in)
    found = oc.occupancy(_h200(), 256, 254, 67584)
    assert (found.blocks_per_sm, found.occupancy_pct, found.by_smem) == (1, 12.5, 3)
    assert oc.occupancy(_h200(), 256, 254, 67584, optin=False).by_smem == 0


def test_trace_rows_carry_the_resources(tmp_path):
    from runtime_lab.lab import profiling

    rows = {r.name[:40]: r for r in profiling._cuda_rows(H200 / TRACES[0], 1)}
    gemm = next(r for n, r in rows.items() if n.startswith("sm80_xmma_gemm"))
    assert (gemm.grid, gemm.block, gemm.registers, gemm.shared_memory_bytes) == (
        "8x16x1",
        "128x1x1",
        224,
        18816,
    )
    assert gemm.profiler_blocks_per_sm == pytest.approx(128 / 132, abs=1e-5)
    assert gemm.profiler_warps_per_sm == pytest.approx(4 * 128 / 132, abs=1e-5)
    assert gemm.profiler_occupancy_pct == 6 and gemm.bytes_per_launch is None
    assert len(profiling.launch_order(H200 / TRACES[0])) == 5
    data = _trace(TRACES[0])
    for event in data["traceEvents"]:
        if event.get("cat") == "kernel":
            event["args"]["blocks per SM"] = "inf"  # what Kineto writes for an unknown SM count
    (tmp_path / "t.json").write_text(json.dumps(data))
    assert all(
        r.profiler_blocks_per_sm is None for r in profiling._cuda_rows(tmp_path / "t.json", 1)
    )


def test_op_lists_give_the_bytes_model():
    from runtime_lab.workloads import ops
    from runtime_lab.workloads.long_chain.op import CHAIN_LENGTH as k

    work = ops.load("long-chain", (8, 8), "float32", "cpu", 0)
    out, eager = ops.eager_call(work.fn, work.inputs)
    # k steps add(y, h, alpha=c) + (k - 1) adds for the sum + k products + (k - 1) adds
    assert len(eager) == 4 * k - 2 == 62
    n = 8 * 8 * 4
    assert {(o.read_bytes, o.write_bytes) for o in eager} == {(2 * n, n)}  # alpha is no read
    # every op reads 2 and writes 1: 3 (4k - 2) = 12k - 6 transfers
    assert sum(o.read_bytes + o.write_bytes for o in eager) == (12 * k - 6) * n == 186 * n
    assert ops.ideal_bytes(work, out) == 3 * n
    pointwise = ops.load("pointwise", (8, 8), "float32", "cpu", 0)
    _, eager = ops.eager_call(pointwise.fn, pointwise.inputs)
    assert sum(o.read_bytes + o.write_bytes for o in eager) == EAGER_TRANSFERS * n == 11 * n
    from runtime_lab.workloads.registry import NAMES

    assert tuple(WORKLOADS) == NAMES  # the fusion option offers the whole catalog


def test_bytes_per_launch_follows_the_op_order():
    from runtime_lab.fusion.run import clocks
    from runtime_lab.workloads.ops import OpBytes

    ops = tuple(
        OpBytes(n, r * 40, w * 40)
        for n, r, w in (("add", 2, 1), ("silu", 1, 1), ("add", 2, 1), ("mul", 2, 1))
    )
    rows = tuple(KernelRow(n, c, 1.0, 1.0) for n, c in (("add", 2.0), ("silu", 1.0), ("mul", 1.0)))
    order = ("add", "silu", "add", "mul") * clocks.PROFILED_CALLS
    mode = SimpleNamespace(transfers_per_element=11, bytes_moved=11 * 40)  # 40 bytes a transfer
    found = {r.name: r.bytes_per_launch for r in clocks._with_bytes(rows, mode, order, ops, False)}
    assert found == {"add": 120, "silu": 80, "mul": 120}
    assert clocks._with_bytes(rows, mode, order[:-1], ops, False) == rows  # a stray launch: unknown
    fused = SimpleNamespace(transfers_per_element=3, bytes_moved=120)
    one = (KernelRow("triton_poi_fused_0", 1.0, 5.0, 5.0),)
    assert clocks._with_bytes(one, fused, (), ops, True)[0].bytes_per_launch == 120


def test_resources_frame():
    frame = fk.resources_frame(_resources_result()).set_index("mode")
    sin = frame.loc["eager"]
    # 128 threads × 32 registers: 16 blocks of 4 warps, 100 % (as the first hand case); the
    # 64-block grid fills 64 / (16 × 132) of a wave, and the profiler's estimate shows that
    assert (sin["occupancy_pct"], sin["registers_source"], sin["profiler_occupancy_pct"]) == (
        100.0,
        "profiler",
        3,
    )
    assert sin["waves"] == pytest.approx(64 / (16 * 132))
    fused = frame.loc["inductor"]
    # 168 × 32 = 5376 per warp (21 units); 16384 / 5376 = 3 per sub-partition → 12 warps → 3
    # blocks of 4 warps: 12 / 64 = 18.75 %, registers
    assert (fused["blocks_per_sm"], fused["occupancy_pct"]) == (3, 18.75)
    assert fused["limiting_resource"] == "registers" and fused["spilled_registers"] == 0
    assert fused["gbps"] == pytest.approx(fused["bytes_per_launch"] / 700e3)
    tuned = frame.loc["inductor-max-autotune-no-cudagraphs"]
    assert tuned["registers_per_thread"] == 40 and tuned["registers_source"] == "Triton"
    assert tuned["occupancy_pct"] == 75.0 and pd.isna(tuned["gbps"])  # 1280/warp → 12 → 48 warps
    assert list(fk.longest(fk.resources_frame(_resources_result()))["mode"]) == list(frame.index)


def _tooltips(node, inherited=None):
    """(mark, has a tooltip) for every mark of a Vega-Lite spec, layers inheriting encodings."""
    encoding = {**(inherited or {}), **(node.get("encoding") or {})}
    if "mark" in node:
        yield node["mark"]["type"], bool(encoding.get("tooltip"))
    for child in node.get("layer", []):
        yield from _tooltips(child, encoding)


def test_occupancy_chart():
    frame = fk.resources_frame(_resources_result())
    spec = occupancy_chart(frame, 4000.0).to_dict()
    marks = list(_tooltips(spec))
    assert [m for m, _ in marks] == ["point", "rule", "text"] and all(t for _, t in marks)
    points = spec["layer"][0]["encoding"]
    assert (points["x"]["field"], points["x"]["type"]) == ("occupancy_pct", "quantitative")
    assert points["x"]["scale"]["domain"] == [0, 100] and points["y"]["field"] == "gbps"
    assert points["color"]["field"] == "mode" and points["shape"]["field"] == "limiting_resource"
    drawn = spec["datasets"][spec["layer"][0]["data"]["name"]]
    assert len(drawn) == 2  # max-autotune's kernel has no bytes share here: not drawn


def test_report_shows_resources_and_says_the_long_chain_won():
    result = _resources_result()
    before = registry.build_report(_run(_new()))
    rep = registry.build_report(_run(result))
    titles = [t for t, _ in rep.tables]
    assert titles[2] == rk.TABLE_TITLE and titles[:2] == ["Modes", "Kernels"]
    table = dict(rep.tables)[rk.TABLE_TITLE]
    assert str(table["registers_per_thread"].dtype) == "Int64"
    assert [t for t, _ in rep.charts] == [t for t, _ in before.charts] + [rk.CHART_TITLE]
    notes = "\n".join(rep.notes)
    assert rk.RESOURCES_NOTE in rep.notes
    assert "eager · vectorized_elementwise_kernel<sin_kernel_cuda>: 3 % vs 100.0 %" in notes
    assert "inductor: XBLOCK=1024, num_warps=4: 168 registers/thread, 0 spilled, 18.8 %" in notes
    whatif = next(n for n in rep.notes if n.startswith("Long chain"))
    assert "not slower than eager here (3.00× faster)" in whatif
    assert "cut its occupancy to 18.8 % (eager's longest kernel: 100.0 %)" in whatif
    key = registry.summary(_run(result))
    assert key["kernel_occupancy_pct"]["inductor"] == 18.75 and key["variant"] == "long-chain"
    assert key["kernel_registers"]["inductor-max-autotune-no-cudagraphs"] == 40


def test_report_says_when_the_fused_kernel_is_slower():
    rep = registry.build_report(_run(_resources_result(fused_ms=6.0)))
    whatif = next(n for n in rep.notes if n.startswith("Long chain"))
    assert whatif.startswith("Long chain: the fused kernel is slower than eager (2.00× the time)")
    plain = registry.build_report(_run(_resources_result(variant="pointwise")))
    assert not any(n.startswith("Long chain") for n in plain.notes)


def test_on_cpu_the_table_is_absent_and_a_note_says_why():
    from runtime_lab.lab.device_limits import CPU_NOTE

    result = replace(_new(), device="cpu", limits_note=CPU_NOTE)
    rep = registry.build_report(_run(result))
    assert CPU_NOTE in rep.notes and rk.TABLE_TITLE not in dict(rep.tables)


def test_old_results_rebuild_and_draw_as_before():
    plain = to_plain(_resources_result())
    for mode in plain["modes"]:
        for key in ("triton_kernels", "triton_note"):
            mode.pop(key)
        for kernel in mode["kernels"]:
            for key in list(kernel)[8:]:  # the fields after registers are new
                kernel.pop(key)
    for key in ("variant", "device_limits", "limits_note"):
        plain.pop(key)
    old = from_plain(FusionResult, plain)
    assert old.variant == "pointwise" and old.device_limits is None and old.limits_note == ""
    assert old.modes[1].triton_kernels == () and old.modes[1].kernels[0].shared_memory_bytes is None
    rep = registry.build_report(_run(old))
    assert rk.TABLE_TITLE not in dict(rep.tables) and rk.RESOURCES_NOTE not in rep.notes
    assert "kernel_registers" not in registry.summary(_run(old))
    assert from_plain(FusionResult, to_plain(_resources_result())) == _resources_result()


def test_device_limits_read_feature_detects_torch_properties(monkeypatch):
    import torch

    from runtime_lab.lab import device_limits

    props = SimpleNamespace(
        name="NVIDIA H200",
        major=9,
        minor=0,
        multi_processor_count=132,
        max_threads_per_multi_processor=2048,
        shared_memory_per_multiprocessor=233472,
        warp_size=32,
    )  # an older torch: no regs_per_multiprocessor, no shared_memory_per_block_optin
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda device: props)
    limits, note = device_limits.read(torch.device("cuda"))
    assert limits.registers_per_sm == 65536 and limits.smem_per_block_optin_bytes == 232448
    assert "regs_per_multiprocessor" in note and "9.0 table" in note
    assert "registers_per_sm" not in limits.reported and "smem_per_sm_bytes" in limits.reported
    props.major = 6
    assert device_limits.read(torch.device("cuda"))[0] is None
    assert device_limits.read(torch.device("cpu")) == (None, device_limits.CPU_NOTE)


def test_triton_metadata_from_the_launched_kernel_or_not_in_this_build(monkeypatch):
    from torch._inductor.runtime.triton_heuristics import CachingAutotuner

    from runtime_lab.lab import triton_meta

    tuner = object.__new__(CachingAutotuner)  # as Inductor leaves it after the first call
    tuner.fn = SimpleNamespace(__name__=FUSED)
    cfg = SimpleNamespace(kwargs={"XBLOCK": 1024}, num_warps=4, num_stages=1)
    tuner.launchers = [SimpleNamespace(config=cfg, n_regs=168, n_spills=2, shared=0)]
    tuner.compile_results = []
    monkeypatch.setattr(CachingAutotuner, "run", lambda self, *a, **k: None)
    found, note = triton_meta.kernels(lambda: tuner.run(), 0)
    assert note is None
    assert found == (
        TritonKernel(FUSED, 4, 1, 168, 2, 0, "XBLOCK=1024, num_warps=4, num_stages=1"),
    )

    def broken():
        raise AttributeError("'CachingAutotuner' object has no attribute 'launchers'")

    found, note = triton_meta.kernels(broken, 0)
    assert found == () and note.startswith(triton_meta.NOT_IN_BUILD)


def _draw(run):
    from runtime_lab import ui

    ui.draw(run)


def test_a_report_with_resources_draws():
    run = _run(_resources_result())
    run["env"] = {}
    at = AppTest.from_function(_draw, args=(run,), default_timeout=30)
    at.run()
    assert not at.exception, at.exception
    assert len(at.get("vega_lite_chart")) == len(registry.build_report(run).charts)
    assert f"**{rk.TABLE_TITLE}**" in [m.value for m in at.markdown]
    assert rk.RESOURCES_NOTE in [c.value for c in at.caption]
    assert len(at.dataframe) >= len(registry.build_report(run).tables)
