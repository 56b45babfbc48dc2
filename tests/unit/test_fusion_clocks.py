"""Three clocks, the best ceiling and the naive A/B from hand-made results (no torch, no worker)."""

from dataclasses import replace

import pytest
from fusiondata import EAGER_BYTES, FUSED_BYTES
from fusiondata import result as _result
from fusiondata import run as _run
from fusiondata import timing as _timing
from fusiondata import with_clocks as _new

from runtime_lab import registry
from runtime_lab.fusion.report import clocks as fclocks
from runtime_lab.fusion.report.clock_chart import clocks_chart
from runtime_lab.fusion.report.figures import ceiling, figures, key_figures, naive_speedup
from runtime_lab.view import charts, frames

INDUCTOR_GBPS = FUSED_BYTES / 1e-3 / 1e9
EAGER_GBPS = EAGER_BYTES / 3e-3 / 1e9  # the hand-made eager moves more bytes per second


def test_allowed_disagreement_depends_on_size_and_the_labs_spread():
    assert fclocks.allowed_fraction(0.02, 2048 * 2048) == 0.05
    assert fclocks.allowed_fraction(0.08, 4096 * 4096) == 0.08
    assert fclocks.allowed_fraction(0.02, 2048 * 2047) == 0.02  # small: the lab's spread only
    assert fclocks.allowed_fraction(0.0, 256 * 256) == 0.0


def test_clock_ratios_and_flags():
    rows = {(r["mode"], r["clock"]): r for r in fclocks.clock_rows(_new())}
    assert [c for m, c in rows if m == "eager"] == [
        "lab",
        "torch.utils.benchmark",
        "triton.do_bench",
    ]
    lab = rows[("eager", "lab")]
    assert lab["ratio_to_lab"] == 1.0 and not lab["flagged"] and lab["allowed_pct"] == 5.0
    bench = rows[("eager", "torch.utils.benchmark")]
    assert bench["ratio_to_lab"] == pytest.approx(3.1 / 3.0) and not bench["flagged"]
    assert rows[("eager", "triton.do_bench")]["flagged"]
    ind = rows[("inductor", "torch.utils.benchmark")]
    assert ind["allowed_pct"] == pytest.approx(10.0) and not ind["flagged"]
    quantiles = rows[("inductor", "triton.do_bench")]
    assert quantiles["flagged"] and quantiles["ratio_to_lab"] == pytest.approx(0.85)
    assert quantiles["q1_ms"] == pytest.approx(0.84) and quantiles["q3_ms"] == pytest.approx(0.86)
    assert rows[("inductor", "lab")]["q1_ms"] == pytest.approx(0.95)  # from the samples
    # the same 8 % at a small shape exceeds a tighter lab: flagged there
    small = {(r["mode"], r["clock"]): r for r in fclocks.clock_rows(_new(numel=1024 * 1024))}
    assert small[("eager", "torch.utils.benchmark")]["flagged"]  # lab IQR 0: any gap counts
    assert ("inductor-reduce-overhead", "lab") not in rows  # no clocks recorded: no rows
    assert fclocks.clock_medians(_new())["inductor"]["triton.do_bench"] == 0.85


def test_best_ceiling_is_used_for_percent_of_ceiling():
    new = _new(add_gbps=195.0, copy_gbps=150.0)
    assert ceiling(new) == (195.0, "add (2 reads + 1 write)")
    fig = figures(new)
    assert (fig.ceiling_gbps, fig.ceiling_source) == (195.0, "add (2 reads + 1 write)")
    by = {f.mode: f for f in fig.modes}
    assert by["inductor"].ceiling_pct == pytest.approx(100 * INDUCTOR_GBPS / 195.0)
    assert ceiling(_new(add_gbps=100.0, copy_gbps=150.0)) == (150.0, "copy")
    old = _result()  # recorded before the add: the copy is the ceiling
    assert ceiling(old) == (old.copy_ceiling_gbps, "copy")
    assert figures(old).modes[1].ceiling_pct == pytest.approx(
        100 * INDUCTOR_GBPS / old.copy_ceiling_gbps
    )


def test_naive_speedup_counts_the_compile_in_one_arm():
    # eager: first call 900 ms + 5 × 3 ms; inductor: warm-cache compile 500 ms + 5 × 1 ms
    assert naive_speedup(_new()) == pytest.approx((900 + 5 * 3.0) / (500 + 5 * 1.0))
    first = replace(
        _new().modes[1],
        compile=(replace(_new().modes[1].compile[0], scenario="first call", first_call_s=2.0),),
    )
    with_first = replace(_new(), modes=(_new().modes[0], first, _new().modes[2]))
    assert naive_speedup(with_first) == pytest.approx((900 + 15) / (2000 + 5))
    key = key_figures(_new())
    assert key["naive_speedup"] == pytest.approx(915 / 505) and key["measured_speedup"] == 3.0


def test_summary_gains_keys_only_for_runs_timed_before_profiling():
    key = registry.summary(_run(_new()))
    assert key["clocks"]["eager"] == {
        "lab": 3.0,
        "torch.utils.benchmark": 3.1,
        "triton.do_bench": 3.3,
    }
    assert key["ceiling_gbps"] == 195.0 and key["ceiling_source"].startswith("add")
    assert key["add_gbps"] == 195.0 and key["copy_ceiling_gbps"] == 150.0
    assert key["theoretical_gbps"] is None
    assert key["max_ceiling_pct"] == pytest.approx(100 * EAGER_GBPS / 195.0)
    old = registry.summary(_run(_result()))
    assert not {"clocks", "naive_speedup", "ceiling_gbps"} & set(old)
    assert set(old) < set(key)  # every old key is still there


def test_report_warns_over_ceiling_and_on_flagged_clocks():
    rep = registry.build_report(_run(_new(add_gbps=EAGER_GBPS / 1.03)))  # eager at 103 %
    over = [w for w in rep.warnings if " reaches " in w]
    assert len(over) == 1 and over[0].startswith("eager reaches 103 % of the add")
    assert "the working set (" in over[0]  # why, in this run's sizes (ws: test_fusion_cache)
    clocks = [w for w in rep.warnings if w.startswith("Clocks disagree")]
    assert len(clocks) == 1
    assert "eager · triton.do_bench 1.100×" in clocks[0]
    assert "inductor · triton.do_bench 0.850×" in clocks[0]
    assert "torch.utils.benchmark" not in clocks[0]  # inside the allowed disagreement
    assert "Bandwidth: achieved GB/s against the add (2 reads + 1 write) ceiling" in [
        t for t, _ in rep.charts
    ]
    metrics = {m.label: m.value for m in rep.metrics}
    assert metrics["ceiling (best measured)"] == "238.9 GB/s (add (2 reads + 1 write))"
    assert metrics["theoretical peak"] == "not available"
    assert metrics["speed-up: naive A/B vs measured"] == "1.81× vs 3×"
    assert any(n.startswith("A naive A/B would report 1.81×") for n in rep.notes)
    tables = dict(rep.tables)
    three = tables["Three clocks"]
    assert list(three.columns[:6]) == [
        "mode",
        "clock",
        "median_ms",
        "iqr_ms",
        "ratio_to_lab",
        "flagged",
    ]
    assert len(three) == 6 and three["flagged"].sum() == 2
    assert len(rep.charts) == 7
    # 100.9 % is within the 1 % margin: no ceiling warning
    calm = registry.build_report(_run(_new(add_gbps=EAGER_GBPS / 1.009)))
    assert not [w for w in calm.warnings if "above what was measured" in w]
    # a run recorded before this code: no new warning, chart, table or metric
    old = registry.build_report(_run(_result()))
    assert not old.warnings and "Three clocks" not in dict(old.tables) and len(old.charts) == 6


def test_clocks_chart_spec():
    spec = clocks_chart(fclocks.clocks_frame(fclocks.clock_rows(_new()))).to_dict()
    bars, points = spec["layer"]
    assert bars["mark"]["type"] == "rule" and points["mark"]["type"] == "point"
    assert bars["encoding"]["x"]["field"] == "q1_ms" and bars["encoding"]["x2"]["field"] == "q3_ms"
    assert points["encoding"]["x"]["field"] == "median_ms"
    assert points["encoding"]["yOffset"]["field"] == "clock"
    shape = points["encoding"]["shape"]
    assert shape["field"] == "agreement"  # each row's own verdict, by the flag's threshold
    assert shape["scale"]["domain"] == list(fclocks.AGREEMENT)
    assert shape["scale"]["range"] == ["circle", "cross", "triangle"]
    for layer in (bars, points):
        tips = {t["field"] for t in layer["encoding"]["tooltip"]}
        assert {"median_ms", "iqr_ms", "ratio_to_lab", "flagged", "detail"} <= tips
    assert spec["layer"][0]["encoding"]["color"]["scale"]["domain"] == [
        "lab",
        "torch.utils.benchmark",
        "triton.do_bench",
    ]
    data = spec["datasets"][spec["data"]["name"]] if "data" in spec else None
    rows = data or next(iter(spec["datasets"].values()))
    assert len(rows) == 6 and sum(r["flagged"] for r in rows) == 2
    assert all((r["agreement"] == fclocks.FLAGGED) == r["flagged"] for r in rows)


def test_timing_chart_marks_a_noisy_series_in_the_chart():
    timings = [
        _timing("steady", [1.0] * 5, [0.1] * 5),
        _timing("jumpy", [1.0, 1.0, 2.0, 3.0, 3.0], [0.1] * 5),
    ]
    summary = frames.timing_summary(timings)
    spec = charts.timing_chart(frames.timing_samples(timings), summary).to_dict()
    median = spec["layer"][2]
    assert median["mark"]["type"] == "point"
    assert median["encoding"]["shape"]["field"] == "steadiness"
    assert median["encoding"]["shape"]["scale"]["domain"] == [charts.STEADY, charts.NOISY]
    assert median["encoding"]["fill"]["scale"]["range"] == ["black", charts.NOISY_COLOR]
    assert "datum.noisy" in median["transform"][0]["calculate"]
    noisy = summary.set_index(["label", "clock"])["noisy"]
    assert bool(noisy[("jumpy", "device")]) and not bool(noisy[("steady", "device")])


def test_host_bound_modes_get_the_process_note_and_device_bound_ones_do_not():
    from runtime_lab import registry

    notes = [n for n in registry.build_report(_run(_result())).notes if "Host-bound" in n]
    assert len(notes) == 1 and "inductor." in notes[0] and "eager" not in notes[0].split(".")[0]
