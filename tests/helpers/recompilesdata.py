"""Hand-made recompiles results (the issue's sequence, the what-ifs) and their stored runs, for
the tests that draw, compare or export recompiles runs without a worker."""

from dataclasses import replace

from runtime_lab.recompiles import cudagraph_calls as cg
from runtime_lab.recompiles.result import CallRecord, GraphBreakResult, ModeRun, RecompilesResult
from runtime_lab.results import to_plain

SIZES = (512, 1024, 2048, 3000, 4096, 512)
REASON = "0/0: tensor 'x' size mismatch at index 0. expected 512, actual 1024"


def call(i, side, event, compile_id, reason=None, compile_s=None, padded=None, error=None):
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


def static_mode():
    calls = [call(1, 512, "compile", "0/0", compile_s=2.0)]
    for i, side in enumerate(SIZES[1:5], start=2):
        prev = SIZES[i - 2]
        reason = f"0/{i - 2}: tensor 'x' size mismatch at index 0. expected {prev}, actual {side}"
        calls.append(call(i, side, "recompile", f"0/{i - 1}", reason, compile_s=0.5))
    calls.append(call(6, 512, "cache hit", "0/0"))
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


def auto_mode():
    calls = [
        call(1, 512, "compile", "0/0", compile_s=1.0),
        call(2, 1024, "recompile", "0/1", REASON, compile_s=1.5),
        *[call(i, s, "cache hit", "0/1") for i, s in enumerate(SIZES[2:], start=3)],
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


def limited_mode():
    calls = [
        call(i, 8 * i, "recompile" if i > 1 else "compile", f"0/{i - 1}", compile_s=0.1)
        for i in range(1, 9)
    ]
    error = "FailOnRecompileLimitHit: Hard failure due to fullgraph=True"
    calls += [call(i, 8 * i, "failed", None, REASON, error=error) for i in (9, 10)]
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


def bucketed_mode():
    calls = [
        call(1, 512, "compile", "0/0", compile_s=2.0),
        call(2, 1024, "recompile", "0/1", REASON, compile_s=0.5),
        call(3, 2048, "recompile", "0/2", "r", compile_s=0.5),
        call(4, 3000, "recompile", "0/3", "r", compile_s=0.5, padded=4096),
        call(5, 4096, "cache hit", "0/3"),
        call(6, 512, "cache hit", "0/0"),
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


def result(limited=True):
    modes = (bucketed_mode(), static_mode(), auto_mode()) + ((limited_mode(),) if limited else ())
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


def run(result):
    spec = {"experiment": "recompiles", "shape": [512, 512], "dtype": "float32", "options": {}}
    return {"id": 3, "status": "done", "spec": spec, "env": {}, "result": to_plain(result)}


FAIL = (
    "RuntimeError: Detected recompile when torch.compile stance is 'fail_on_recompile'. "
    "filename: 'workload.py', function name: 'pointwise', line number: 9"
)
STANCE_REASON = "stance fail_on_recompile: raised instead of recompiling (0/0: tensor 'x' size …)"
# what cudagraph trees did on 64², 128², 64², 64², 128², 128² (dynamic=False, one graph a shape)
STATES = ["warmup", "warmup", "recorded", "replayed", "recorded", "replayed"]
TAPS = [[("warmup", None)], [("warmup", None)], [("record", 0)], [("replay", 0)]]
TAPS += [[("replay", 0), ("record", 1)], [("replay", 1)]]


def staged_mode(mode="dynamic=False"):
    """fail_on_recompile after call 1: the sizes that would recompile raise instead."""
    calls = [call(1, 512, "compile", "0/0", compile_s=1.0)]
    for i in (2, 3):
        calls.append(
            replace(
                call(i, 512 * i, "failed", None, error=FAIL),
                reason=STANCE_REASON,
                stance="fail_on_recompile",
            )
        )
    calls.append(replace(call(4, 512, "cache hit", "0/0"), stance="fail_on_recompile"))
    return ModeRun(
        mode=mode,
        dynamic="False",
        detail="static shapes",
        calls=tuple(calls),
        unique_graphs=1,
        compiles=1,
        cache_hits=1,
        failed_calls=2,
        compile_s=1.0,
        stance="fail_on_recompile",
        stance_failed=2,
    )


def unbacked_mode():
    calls = [call(1, 512, "compile", "0/0", compile_s=1.0)]
    calls += [call(i, s, "cache hit", "0/0") for i, s in ((2, 1024), (3, 1))]
    return ModeRun(
        mode="mark_unbacked",
        dynamic="None",
        detail="mark_unbacked on dims 0,1",
        calls=tuple(calls),
        unique_graphs=1,
        compiles=1,
        cache_hits=2,
        compile_s=1.0,
    )


def graphs_mode():
    sides = (64, 128, 64, 64, 128, 128)
    events = ["compile", "recompile", "cache hit", "cache hit", "cache hit", "cache hit"]
    calls = []
    for i, (side, event, taps) in enumerate(zip(sides, events, TAPS, strict=True), start=1):
        state, graph, why = cg.outcome(taps)
        record = call(i, side, event, "0/0" if side == 64 else "0/1", compile_s=0.5)
        calls.append(replace(record, cudagraph=state, cudagraph_id=graph, cudagraph_reason=why))
    return ModeRun(
        mode=cg.MODE,
        dynamic="False",
        detail="mode=reduce-overhead",
        calls=tuple(calls),
        unique_graphs=2,
        compiles=2,
        recompiles=1,
        cache_hits=4,
        pool_bytes=4 * 2**20,
    )


def whatif() -> RecompilesResult:
    base = result(limited=False)
    return replace(
        base,
        modes=(staged_mode(), unbacked_mode(), graphs_mode(), staged_mode("maybe_mark_dynamic")),
        stance="fail_on_recompile",
        cudagraphs=True,
    )


TOKENS = (512, 1024, 2048, 4096)  # rms_norm's growing-tokens at hidden 4096


def token_call(i, tokens, event, compile_id, reason=None, compile_s=None):
    shape = (tokens, 4096)
    return CallRecord(
        index=i,
        shape=shape,
        requested_shape=shape,
        dtype="bfloat16",
        event=event,
        call_s=(compile_s or 0.0) + 0.001,
        compile_s=compile_s,
        compile_id=compile_id,
        reason=reason,
        steady_ms=0.01 * i,
        eager_ms=0.02 * i,
    )


def token_mode(mode, events, ids, compiles):
    calls = []
    for i, (tokens, event, cid) in enumerate(zip(TOKENS, events, ids, strict=True), start=1):
        before = TOKENS[i - 2] if i > 1 else None
        reason = (
            f"0/0: tensor 'x' size mismatch at index 0. expected {before}, actual {tokens}"
            if event == "recompile"
            else None
        )
        calls.append(token_call(i, tokens, event, cid, reason, 0.4 if "compile" in event else None))
    return ModeRun(
        mode=mode,
        dynamic="None",
        detail=mode,
        calls=tuple(calls),
        unique_graphs=compiles,
        compiles=compiles,
        recompiles=compiles - 1,
        cache_hits=len(TOKENS) - compiles,
        compile_s=0.4 * compiles,
    )


def rms_norm_result(auto_compiles=2) -> RecompilesResult:
    """rms_norm along growing-tokens (bf16): what a run of a catalog workload records; the
    automatic-dynamic mode's compiles can be set off what the seed's rules expect (2)."""
    static = token_mode(
        "dynamic=False",
        ["compile", "recompile", "recompile", "recompile"],
        ["0/0", "0/1", "0/2", "0/3"],
        4,
    )
    auto_events = ["compile"] + ["recompile"] * (auto_compiles - 1)
    auto_events += ["cache hit"] * (len(TOKENS) - auto_compiles)
    auto_ids = [f"0/{min(i, auto_compiles - 1)}" for i in range(len(TOKENS))]
    auto = token_mode("dynamic=None", auto_events, auto_ids, auto_compiles)
    marked = token_mode("mark_dynamic", ["compile"] + ["cache hit"] * 3, ["0/0"] * 4, 1)
    return RecompilesResult(
        device="cuda:0",
        backend="inductor",
        fullgraph=False,
        dtype="bfloat16",
        sequence=tuple(f"{t}x4096" for t in TOKENS),
        dims=(0,),
        recompile_limit=8,
        bucket="off",
        bucket_multiple=256,
        fresh_caches=False,
        modes=(static, auto, marked),
        workload="rms_norm",
        dim_names=("tokens", "hidden"),
        marked="x dim 0",
    )
