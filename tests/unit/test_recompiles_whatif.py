"""Recompiles' what-ifs without torch: the new marks' modes, a stance, reduce-overhead's CUDA graphs."""

from functools import partial

import pandas as pd
import pytest
from recompilesdata import STATES, TAPS
from recompilesdata import result as _result
from recompilesdata import run as _run
from recompilesdata import whatif as _whatif

from runtime_lab import registry
from runtime_lab.glossary import registry as glossary
from runtime_lab.recompiles import cudagraph_calls as cg
from runtime_lab.recompiles.report import charts as cr
from runtime_lab.recompiles.report import compare as rc
from runtime_lab.recompiles.report import frames as fr
from runtime_lab.recompiles.report.figures import MODE_ORDER, figures, mode_order
from runtime_lab.recompiles.result import RecompilesResult
from runtime_lab.results import from_plain, to_plain


def test_outcome_of_recorded_looking_taps():
    assert [cg.outcome(t)[0] for t in TAPS] == STATES
    assert [cg.outcome(t)[1] for t in TAPS] == [None, None, 0, 0, 1, 1]
    assert cg.outcome(TAPS[0])[2] == cg.WARMUP_WHY
    # a compile that skipped cudagraphs: its reason, on the call and on the frame's later calls
    why = "skipping cudagraphs due to mutated inputs (1 instances)"
    assert cg.outcome([], skips=1, skip_reason=why) == ("skipped", None, why)
    assert cg.outcome([], frame_skip=why) == ("skipped", None, why)
    assert "cudagraph skip(s)" in cg.outcome([], skips=2)[2]  # counted but not worded
    assert cg.outcome([]) == ("skipped", None, cg.QUIET_WHY)
    assert cg.outcome([("record", 3)], failed=True) == (None, None, None)


def test_pool_bytes_sums_the_pools_segments_only():
    segments = [
        {"segment_pool_id": (0, 1), "total_size": 2 << 20},
        {"segment_pool_id": [0, 1], "total_size": 1 << 20},  # as JSON would give it back
        {"segment_pool_id": (0, 0), "total_size": 64 << 20},  # the ordinary caching allocator
        {"total_size": 8},
    ]
    assert cg.pool_bytes(segments, (0, 1)) == 3 << 20
    assert cg.pool_bytes(segments, (9, 9)) == 0
    assert cg.counts(STATES + [None]) == {"warmup": 2, "recorded": 2, "replayed": 2, "skipped": 0}


def test_new_modes_keep_their_order_and_colours():
    result = _whatif()
    assert mode_order(result) == [
        "dynamic=False",
        "maybe_mark_dynamic",
        "mark_unbacked",
        cg.MODE,
    ]
    assert len(cr.MODE_COLORS) == len(MODE_ORDER)
    calls = fr.calls_frame(result)
    assert set(calls["stance"].dropna()) == {"fail_on_recompile"}
    assert list(calls[calls["mode"] == cg.MODE]["cudagraph"]) == STATES
    chart = cr.steady_chart(calls, mode_order(result)).to_dict()
    assert chart["layer"]
    assert cr.timeline_chart(calls, mode_order(result)).to_dict()["facet"]


def test_totals_carry_the_stance_and_the_graphs():
    totals = fr.totals_frame(_whatif(), figures(_whatif())).set_index("mode")
    assert totals.loc["dynamic=False", "stance_failed"] == 2
    assert pd.isna(totals.loc["mark_unbacked", "stance"])
    assert totals.loc[cg.MODE, "cudagraphs_recorded"] == 2
    assert totals.loc[cg.MODE, "pool_mb"] == pytest.approx(4 * 2**20 / 1e6)
    graphs = fr.cudagraph_frame(_whatif())
    assert list(graphs["cudagraph"]) == STATES and list(graphs["cuda_graph_id"])[2:4] == [0, 0]
    assert cr.cudagraph_chart(graphs).to_dict()["layer"]


def test_report_counts_the_stance_and_the_graphs_without_warning():
    rep = registry.build_report(_run(_whatif()))
    assert rep.ok and rep.warnings == ()  # the stance's failures are the what-if's answer
    assert rep.headline.endswith("· stance fail_on_recompile after call 1")
    metrics = {m.label: m.value for m in rep.metrics}
    assert metrics["stance after call 1"] == "fail_on_recompile · 0 eager · 4 failed"
    assert metrics[f"{cg.MODE}: CUDA graphs"] == "2 recorded · 2 replayed"
    notes = " ".join(rep.notes)
    assert "dynamic=False under stance fail_on_recompile: of 3 call(s) after the first" in notes
    assert "2 raised because of the stance, 1 ran a compiled frame" in notes
    assert "2 warm-up(s), 2 recorded, 2 replayed, 0 skipped" in notes and "4.19 MB" in notes
    assert "call(s) 3 with a size-1 dimension reused its frame" in notes  # mark_unbacked
    titles = [t for t, _ in rep.tables]
    assert "CUDA graphs per call (reduce-overhead)" in titles
    assert any(t.startswith("reduce-overhead what-if") for t, _ in rep.charts)
    calls = dict(rep.tables)["Calls"]
    assert {"stance", "cudagraph", "cudagraph_reason"} <= set(calls.columns)
    for _, chart in rep.charts:
        chart.to_dict()


def test_key_figures_and_compare_handle_the_what_ifs():
    figures = registry.summary(_run(_whatif()))
    assert figures["stance"]["failed"] == {"dynamic=False": 2, "maybe_mark_dynamic": 2}
    assert figures["cudagraphs"]["recorded"] == 2 and figures["cudagraphs"]["pool_bytes"] > 0
    assert "stance" not in registry.summary(_run(_result()))  # none asked: nothing to compare
    titles = [t for t, _ in rc.charts([("#1", _whatif()), ("#2", _result())])]
    assert "Calls after the first that the stance ran eager or made fail, by mode" in titles
    label = partial(glossary.label, "recompiles")
    assert label("stance.failed.dynamic=False") == "dynamic=False calls the stance made fail"
    assert label("cudagraphs.pool_bytes") == "reduce-overhead CUDA-graph pool"
    # runs without a stance draw no stance bars
    plain = [t for t, _ in rc.charts([("#1", _result()), ("#2", _result())])]
    assert "Calls after the first that the stance ran eager or made fail, by mode" not in plain


def test_a_stored_run_from_before_the_what_ifs_still_rebuilds():
    plain = to_plain(_result())
    for mode in plain["modes"]:
        for key in ("stance", "stance_eager", "stance_failed", "pool_bytes", "cudagraph_note"):
            mode.pop(key)
        for call in mode["calls"]:
            for key in ("stance", "cudagraph", "cudagraph_id", "cudagraph_reason"):
                call.pop(key)
    plain.pop("stance")
    plain.pop("cudagraphs")
    old = from_plain(RecompilesResult, plain)
    assert old.stance == "default" and not old.cudagraphs
    assert old.modes[0].stance is None and old.modes[0].calls[0].cudagraph is None
    registry.build_report(_run(old))
