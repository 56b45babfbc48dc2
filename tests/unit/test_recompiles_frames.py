"""Recompiles frames, charts and report from a hand-made result (no torch, no worker)."""

from dataclasses import replace

from runtime_lab import registry
from runtime_lab.recompiles import charts as cr
from runtime_lab.recompiles import frames as fr
from runtime_lab.recompiles.result import CallRecord, GraphBreakResult, ModeRun, RecompilesResult
from runtime_lab.results import to_plain

SIZES = (512, 1024, 2048, 3000, 4096, 512)
REASON = "0/0: tensor 'x' size mismatch at index 0. expected 512, actual 1024"


def _call(i, side, event, compile_id, reason=None, compile_s=None, padded=None, error=None):
    shape = (padded or side, padded or side)
    return CallRecord(
        index=i,
        shape=shape,
        requested_shape=(side, side),
        dtype="float32",
        event=event,
        call_s=(compile_s or 0.0) + 0.001,
        compile_s=compile_s,
        compile_id=compile_id,
        reason=reason,
        guard_failures=(reason,) if reason else (),
        guard_count=11 if compile_s else None,
        steady_ms=0.01 * i if event != "failed" else None,
        steady_iqr_ms=0.001,
        eager_ms=0.03 * i,
        padding_bytes=((padded or side) ** 2 - side**2) * 12,
        error=error,
    )


def _static():
    calls = [_call(1, 512, "compile", "0/0", compile_s=2.0)]
    for i, side in enumerate(SIZES[1:5], start=2):
        prev = SIZES[i - 2]
        reason = f"0/{i - 2}: tensor 'x' size mismatch at index 0. expected {prev}, actual {side}"
        calls.append(_call(i, side, "recompile", f"0/{i - 1}", reason, compile_s=0.5))
    calls.append(_call(6, 512, "cache hit", "0/0"))
    return ModeRun(
        mode="dynamic=False",
        dynamic="False",
        detail="static shapes",
        calls=tuple(calls),
        unique_graphs=5,
        compiles=5,
        recompiles=4,
        cache_hits=1,
        compile_s=4.0,
        final_compile_id="0/4",
        final_guards="TREE_GUARD_MANAGER:\n+- RootGuardManager",
    )


def _auto():
    calls = [
        _call(1, 512, "compile", "0/0", compile_s=1.0),
        _call(2, 1024, "recompile", "0/1", REASON, compile_s=1.5),
        *[_call(i, s, "cache hit", "0/1") for i, s in enumerate(SIZES[2:], start=3)],
    ]
    return ModeRun(
        mode="dynamic=None",
        dynamic="None",
        detail="automatic dynamic",
        calls=tuple(calls),
        unique_graphs=2,
        compiles=2,
        recompiles=1,
        cache_hits=4,
        compile_s=2.5,
    )


def _limited():
    calls = [
        _call(i, 8 * i, "recompile" if i > 1 else "compile", f"0/{i - 1}", compile_s=0.1)
        for i in range(1, 9)
    ]
    error = "FailOnRecompileLimitHit: Hard failure due to fullgraph=True"
    calls += [_call(i, 8 * i, "failed", None, REASON, error=error) for i in (9, 10)]
    return ModeRun(
        mode="dynamic=True",
        dynamic="True",
        detail="dynamic",
        calls=tuple(calls),
        unique_graphs=8,
        compiles=8,
        recompiles=7,
        failed_calls=2,
        compile_s=0.8,
        limit_hit=True,
        limit_state="hit recompile_limit (8) at call 9: with fullgraph=True that is an error",
        limit_error=error,
    )


def _bucketed():
    calls = [
        _call(1, 512, "compile", "0/0", compile_s=2.0),
        _call(2, 1024, "recompile", "0/1", REASON, compile_s=0.5),
        _call(3, 2048, "recompile", "0/2", "r", compile_s=0.5),
        _call(4, 3000, "recompile", "0/3", "r", compile_s=0.5, padded=4096),
        _call(5, 4096, "cache hit", "0/3"),
        _call(6, 512, "cache hit", "0/0"),
    ]
    return ModeRun(
        mode="bucketed",
        dynamic="False",
        detail="padded",
        calls=tuple(calls),
        unique_graphs=4,
        compiles=4,
        recompiles=3,
        cache_hits=2,
        compile_s=3.5,
    )


def _result(limited=True):
    modes = (_bucketed(), _static(), _auto()) + ((_limited(),) if limited else ())
    return RecompilesResult(
        device="cuda:0",
        backend="inductor",
        fullgraph=True,
        dtype="float32",
        sequence=tuple(f"{s}x{s}" for s in SIZES),
        dims=(0, 1),
        recompile_limit=8,
        bucket="pow2",
        bucket_multiple=256,
        fresh_caches=False,
        modes=modes,
        graph_break=GraphBreakResult(
            variant="item-branch",
            source="def item_branch(x, y): ...",
            shape=(512, 512),
            dtype="float32",
            unique_graphs=2,
            graph_breaks=1,
            reasons=("Unsupported Tensor.item() call (×1)",),
            reason_details=("Unsupported Tensor.item() call\n  Explanation: …",),
            fullgraph_error_type="UserError",
            fullgraph_error="Could not guard on data-dependent expression",
            matches_eager=True,
        ),
    )


def _run(result):
    spec = {"experiment": "recompiles", "shape": [512, 512], "dtype": "float32", "options": {}}
    return {"id": 3, "status": "done", "spec": spec, "env": {}, "result": to_plain(result)}


def test_calls_frame_is_tidy_and_ordered():
    calls = fr.calls_frame(_result())
    assert len(calls) == 6 + 6 + 6 + 10
    assert fr.mode_order(_result()) == ["dynamic=False", "dynamic=None", "dynamic=True", "bucketed"]
    static = calls[calls["mode"] == "dynamic=False"]
    assert list(static["label"])[:2] == ["1: 512x512", "2: 1024x1024"]
    assert list(static["compiled"]) == [True] * 5 + [False]
    assert static.iloc[5]["compile_id"] == "0/0"
    failed = calls[calls["event"] == "failed"]
    assert list(failed["compile_id"]) == ["— (eager)"] * 2


def test_totals_limit_and_reasons():
    totals = fr.totals_frame(_result()).set_index("mode")
    assert totals.loc["dynamic=False", "unique_graphs"] == 5
    assert totals.loc["dynamic=None", "cache_hits"] == 4
    assert totals.loc["dynamic=True", "limit_status"] == "hit"
    assert totals.loc["bucketed", "padding_mb"] > 0
    limits = fr.limit_frame(_result()).set_index("mode")
    assert limits.loc["dynamic=False", "status"] == "within"  # 5 of 8: below 75 %
    assert limits.loc["dynamic=False", "fraction"] == 5 / 8
    reasons = fr.reasons_frame(_result())
    assert REASON in set(reasons["guard_failure"])


def test_limit_status_thresholds():
    limits = fr.limit_frame(_result()).set_index("mode")
    assert limits.loc["dynamic=None", "status"] == "within"
    assert fr.limit_status(replace(_static(), compiles=6)) == "near"  # 75 % of 8
    assert limits.loc["dynamic=True", "label"] == "8 / 8 · limit hit"


def test_bucketing_frames():
    per_call = fr.bucket_frame(_result())
    row = per_call[per_call["call"] == 4].iloc[0]
    assert row["padded_shape"] == "4096x4096" and row["padding_bytes"] == (4096**2 - 3000**2) * 12
    summary = fr.bucket_summary(_result())
    assert list(summary["graphs"]) == [5, 4]


def test_charts_render_to_vega_lite():
    result = _result()
    calls = fr.calls_frame(result)
    order = fr.mode_order(result)
    timeline = cr.timeline_chart(calls, order).to_dict()
    assert timeline["facet"]["row"]["field"] == "mode"
    assert cr.limit_chart(fr.limit_frame(result)).to_dict()["layer"]
    assert cr.steady_chart(calls, order).to_dict()["layer"]


def test_report_shows_the_limit_as_a_warning_and_offers_downloads():
    rep = registry.build_report(_run(_result()))
    assert rep.headline.startswith("recompiles cuda:0 inductor, 6 calls: dynamic=False 5 graphs")
    assert rep.ok  # hitting the limit is a state of the run, not a failure of it
    assert rep.warnings == ("dynamic=True: " + _limited().limit_state,)
    metrics = {m.label: m.value for m in rep.metrics}
    assert metrics["dynamic=True: graphs"] == "8 · limit hit"
    assert metrics["item-branch variant: graphs · breaks"] == "2 · 1"
    assert metrics["fullgraph=True on it"] == "UserError"
    assert any("first recompile at call 2, because " + REASON in n for n in rep.notes)
    assert any(n.startswith("Bucketing to powers of two: 4 graphs instead of 5") for n in rep.notes)
    assert [d[0] for d in rep.downloads] == ["Run JSON", "Calls CSV", "Totals CSV", "Reasons CSV"]
    assert rep.code[0][0] == "Guards of the final frame (0/4): dynamic=False"
    assert len(rep.charts) == 3


def test_summary_keys():
    figures = registry.summary(_run(_result()))
    assert figures["unique_graphs"] == {
        "bucketed": 4,
        "dynamic=False": 5,
        "dynamic=None": 2,
        "dynamic=True": 8,
    }
    assert figures["recompile_reasons"]["dynamic=None"] == [REASON]
    assert figures["recompile_limit"]["dynamic=True"]["hit"] is True
    assert figures["graph_breaks"]["unique_graphs"] == 2
    assert figures["compile_s"]["dynamic=False"] == 4.0
