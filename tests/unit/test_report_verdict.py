"""Issue 37: the verdict beside fusion's headline, the naive A/B's record and break-even, the
Summary's parts and the early report's pending figures (hand-made results, no worker)."""

from dataclasses import replace

import pytest
from fusiondata import result as _result
from fusiondata import run as _run
from fusiondata import with_clocks as _new

from runtime_lab import registry
from runtime_lab.fusion.report import clocks as fclocks
from runtime_lab.fusion.report.figures import NAIVE_RECORD, figures, naive_arms
from runtime_lab.fusion.report.summary import naive_value
from runtime_lab.fusion.report.verdict import verdict
from runtime_lab.fusion.result import ClockReading
from runtime_lab.glossary import registry as glossary
from runtime_lab.report import CLOCKS, Metric, Report, Summary, Verdict, pending
from runtime_lab.results import CompileLatency
from runtime_lab.view.summary import fit, key_pairs, lookup, merge_per_mode, words


def _agreeing(result):
    """Every clock of every mode reads the lab's own median: nothing to doubt there."""
    modes = []
    for m in result.modes:
        lab = next((c for c in m.clocks if c.clock == "lab"), None)
        clocks = tuple(replace(c, median_ms=lab.median_ms) for c in m.clocks) if lab else ()
        modes.append(replace(m, clocks=clocks))
    return replace(result, modes=tuple(modes))


def _mode(result, name, **changes):
    return replace(
        result, modes=tuple(replace(m, **changes) if m.mode == name else m for m in result.modes)
    )


ROOMY = 1000.0  # GB/s: a ceiling no hand-made mode reaches (at 195, eager and inductor exceed it)


def _quiet():
    """with_clocks() with a roomy ceiling, every clock agreeing and inductor's spread flat."""
    base = _agreeing(_new(add_gbps=ROOMY))
    return _mode(base, "inductor", timing=replace(base.modes[1].timing, device_ms=(1.0,) * 5))


def test_figures_that_hold_give_a_green_verdict():
    result = _quiet()
    assert verdict(result, figures(result)) == Verdict(True)


def test_a_flagged_clock_is_doubted_with_the_range_of_both_clocks_speedups():
    # do_bench is flagged on both arms; the Timer agrees within its allowance; inductor's IQR is
    # just over 10 % of its median (noisy): its quartiles widen the range
    result = _new(add_gbps=ROOMY)
    found = verdict(result, figures(result))
    assert not found.ok
    assert "triton.do_bench says 3.9×" in found.doubt and "torch.utils.benchmark" not in found.doubt
    assert found.doubt.startswith("Doubt: noisy (IQR/median: inductor 10 %)")
    assert found.ratio_range == pytest.approx((3.0 / 1.05, 3.3 / 0.85))
    assert "3.9×" in found.doubt.split("could be")[1]  # the range is said in the one line


def test_noise_contention_tolerance_and_cache_each_make_the_verdict_doubt():
    base = _quiet()
    noisy = _mode(base, "inductor", timing=replace(base.modes[1].timing, device_ms=(0.5, 1, 2)))
    assert "noisy (IQR/median: inductor" in verdict(noisy, figures(noisy)).doubt
    busy = _mode(base, "eager", timing=replace(base.modes[0].timing, cpu_others_pct=60.0))
    assert "host contended (others took up to 60 %" in verdict(busy, figures(busy)).doubt
    cached = replace(base, copy_ceiling_gbps=10.0, add_gbps=10.0, ceiling_gbps=10.0)
    assert "working set in cache" in verdict(cached, figures(cached)).doubt
    # issue 41: a wrong answer is timed all the same, and its speed is doubted first
    wrong = _mode(base, "inductor", tolerance_passed=False)
    assert verdict(wrong, figures(wrong)) == Verdict(
        False, "Wrong answer: inductor outside tolerance against float64; do not quote its speed."
    )
    # a run stored before issue 41 left it untimed, judged against eager: it reads as it did
    older = _mode(base, "inductor", tolerance_passed=False, ran=False, timing=None)
    assert verdict(older, figures(older)) == Verdict(
        False, "inductor outside tolerance against eager: not timed."
    )


def test_a_clock_inside_a_noisy_labs_spread_is_not_drawn_as_agreeing():
    """0.48× the lab's median once passed as `agrees` because the lab's own spread was wider."""
    lab = (0.4, 1.0, 1.0, 1.0, 1.7)  # IQR/median 60 %: the allowance at a small shape
    result = _mode(
        _new(numel=256 * 256),
        "eager",
        clocks=(
            ClockReading("lab", 1.0, 0.6, lab, "the lab's harness: host"),
            ClockReading("torch.utils.benchmark", 0.48, 0.0, (0.48,) * 4, "timer"),
        ),
    )
    rows = {(r["mode"], r["clock"]): r for r in fclocks.clock_rows(result)}
    timer = rows[("eager", "torch.utils.benchmark")]
    assert not timer["flagged"] and timer["agreement"] == fclocks.UNJUDGED
    assert rows[("eager", "lab")]["agreement"] == fclocks.AGREES


def test_the_naive_ab_uses_the_compiled_arms_own_first_call_and_says_when_it_flips():
    # eager: first call 900 ms + 5 × 3 ms; inductor's own first call 2 s + 5 × 1 ms
    first = CompileLatency("first call", 2.0, compiles=1)
    result = _mode(_new(), "inductor", compile=(first, *_new().modes[1].compile))
    arms = naive_arms(result)
    assert arms.record == NAIVE_RECORD and arms.compiled_first_ms == 2000.0
    assert arms.speedup == pytest.approx((900 + 15) / (2000 + 5))
    assert arms.break_even == pytest.approx((2000 - 900) / (3 - 1))  # 550 calls
    assert naive_value(result, arms.speedup) == f"{arms.speedup:.3g}× (flips after 550 calls)"
    older = naive_arms(_new())  # stored before the first call was kept: its warm-cache record
    assert older.record == "warm-cache" and older.compiled_first_ms == 500.0


def test_fusions_summary_is_glossary_figures_in_pairs_one_chart_and_few_words():
    rep = registry.build_report(_run(_new(add_gbps=ROOMY)))
    summary = rep.summary
    shown = [m for pair in summary.pairs for m in pair]
    assert 0 < len(shown) <= 8
    labels = {f.label_of(f.key.replace("*", "inductor")) for f in glossary.figures("fusion")}
    labels |= {f.label_of(f.key.replace("*", "eager")) for f in glossary.figures("fusion")}
    assert all(m.label in labels for m in shown), [m.label for m in shown]
    assert [m.label for m in summary.pairs[0]] == ["eager kernels", "compiled kernels"]
    assert summary.chart in dict(rep.charts) and summary.chart.startswith("Steady-state")
    assert words(summary.prose) <= 150
    # the flagged clock is in the verdict's doubt beside the headline: not said again above
    # the figures; the whole warning stays, in the Notes
    assert "triton.do_bench says" in rep.verdict.doubt and CLOCKS in rep.verdict.states
    assert summary.warnings == ()
    assert len(rep.warnings) == 1 and "triton.do_bench" in rep.warnings[0]


def test_summary_helpers_fit_merge_and_pick_figures():
    assert fit(["one two three. four five", "six seven"], budget=4) == ("one two three.",)
    assert merge_per_mode(["a: same thing", "b: same thing", "c: other", "no prefix here"]) == (
        "a, b: same thing",
        "c: other",
        "no prefix here",
    )
    key = {"peak_bytes": {"sequence": 2**20, "compiled": None}, "num_ooms": 0}
    pairs = key_pairs(
        "allocator", key, [("peak_bytes.sequence", "peak_bytes.compiled"), ("num_ooms",)]
    )
    assert [[(m.label, m.value) for m in p] for p in pairs] == [
        [("sequence peak allocated", "1 MiB")],
        [("out-of-memory errors", "0")],
    ]
    assert lookup({"clocks": {"torch.utils.benchmark": 1}}, "clocks.torch.utils.benchmark") == 1


def test_an_early_report_marks_what_is_still_to_come_as_pending():
    rep = Report(
        headline="h",
        ok=True,
        metrics=(Metric("cold compile", "—"), Metric("speed-up", "— vs 3.67×")),
        summary=Summary(pairs=((Metric("a", "—"), Metric("b", "1 ms")),)),
        verdict=Verdict(True),
    )
    early = pending(rep)
    assert [m.value for m in early.metrics] == ["pending", "pending vs 3.67×"]
    assert [m.value for m in early.summary.pairs[0]] == ["pending", "1 ms"]
    assert not early.verdict.ok and early.verdict.doubt.startswith("Pending")
    doubted = pending(replace(rep, verdict=Verdict(False, "Doubt: x.", (1.0, 2.0))))
    assert doubted.verdict.ratio_range == (1.0, 2.0) and "still to come" in doubted.verdict.doubt


def test_an_older_fusion_run_still_builds_its_summary():
    rep = registry.build_report(_run(_result()))  # recorded before the clocks and naive A/B
    assert rep.summary.pairs and rep.verdict is not None


def test_clocks_that_part_on_a_host_bound_call_say_so_and_a_busy_gpu_does_not():
    result = _new(add_gbps=ROOMY)  # do_bench flagged on both arms (as above)
    inductor = next(m for m in result.modes if m.mode == "inductor")
    device_us = sorted(inductor.timing.device_ms)[len(inductor.timing.device_ms) // 2] * 1e3
    quick = replace(inductor.timing, host_ms=(device_us / 1e4,) * len(inductor.timing.host_ms))
    slow_host = _mode(result, "inductor", timing=quick, loop_host_us_per_call=device_us * 2.5)
    found = verdict(slow_host, figures(slow_host))
    assert f"inductor is host-bound (the host takes {device_us * 2.5:.0f} µs" in found.doubt
    fast_host = _mode(result, "inductor", timing=quick, loop_host_us_per_call=device_us / 10)
    assert "host-bound" not in verdict(fast_host, figures(fast_host)).doubt


def test_a_host_bound_call_sets_the_host_beside_its_kernels_own_time_where_profiled():
    """The events' span of a host-bound call is the host's pace: the GPU's own time is the
    profiled kernels' sum (figures.kernel_us), said beside it with the speed-up over eager's
    kernels; unprofiled, the span stands in and no GPU-alone speed-up is said."""
    result = _new(add_gbps=ROOMY)
    inductor = next(m for m in result.modes if m.mode == "inductor")
    quick = replace(inductor.timing, host_ms=(1e-4,) * len(inductor.timing.host_ms))
    slow = _mode(result, "inductor", timing=quick, loop_host_us_per_call=5000.0)
    kernels_us = sum(k.total_us for k in inductor.kernels)
    said = verdict(slow, figures(slow)).doubt
    assert f"host takes 5000 µs to issue a call whose kernels run {kernels_us:.0f} µs" in said
    assert figures(slow).summary["kernel_us_per_call"]["inductor"] == kernels_us
    # the speed-up on the GPU alone (what a host that keeps ahead would see) joins the range
    eager_us = figures(slow).summary["kernel_us_per_call"]["eager"]
    gpu = eager_us / kernels_us
    assert f"on the GPU alone the speed-up is {gpu:.2g}× (kernels {kernels_us:.0f} vs" in said
    assert verdict(slow, figures(slow)).ratio_range[1] >= gpu
    unprofiled = _mode(slow, "inductor", kernels=())
    said = verdict(unprofiled, figures(unprofiled)).doubt
    assert "to issue a call the GPU runs in" in said and "GPU alone" not in said
    assert "inductor" not in figures(unprofiled).summary.get("kernel_us_per_call", {})
