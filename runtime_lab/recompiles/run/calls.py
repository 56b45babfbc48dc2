"""Recompiles, one call at a time: what Dynamo did on it, under which stance, and the mode's sums."""

from __future__ import annotations

import time
from dataclasses import replace

import torch
from torch._dynamo.utils import counters

from runtime_lab.lab import compile_tools as ct
from runtime_lab.lab.base import Context
from runtime_lab.recompiles.result import CallRecord, ModeRun
from runtime_lab.recompiles.run.inputs import Work
from runtime_lab.recompiles.run.steady import Marks
from runtime_lab.spec import RunSpec

COMPILED = ("compile", "recompile")
MAX_ERROR = 1500
STANCE_DID = {  # stance → what it did to a call that would have compiled
    "eager_on_recompile": "ran eager instead of recompiling",
    "fail_on_recompile": "raised instead of recompiling",
    "force_eager": "torch.compile ignored, ran eager",
}


def short(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:MAX_ERROR]


def is_limit(text: str | None) -> bool:
    text = (text or "").lower().replace("_", " ")
    return any(k in text for k in ("recompile limit", "recompilelimit", "cache size limit"))


def _fx_cache() -> tuple[int, int]:
    return (
        counters["inductor"].get("fxgraph_cache_hit", 0),
        counters["inductor"].get("fxgraph_cache_miss", 0),
    )


def _stance_reason(stance: str | None, event: str, error: str | None, misses) -> str | None:
    """The call's reason when the stance, not Dynamo's own rules, decided what it did."""
    if not stance or stance == "default" or event not in ("eager fallback", "failed"):
        return None
    if event == "failed" and "fail_on_recompile" not in (error or ""):
        return None  # failed for another reason: the error says which
    text = f"stance {stance}: {STANCE_DID.get(stance, 'changed the call')}"
    return text + (f" ({misses[0]})" if misses else "")


def call(
    compiled,
    code,
    index: int,
    item,
    work: Work,
    spec: RunSpec,
    ctx: Context,
    log,
    marks: Marks,
    stance,
):
    """One call of the sequence: what Dynamo did, how long it took, which frame ran it."""
    requested, shape, dtype = item
    before, log_mark, fx_before = ct.compile_records(), len(log), _fx_cache()
    error = made = None
    start = time.perf_counter()
    try:
        # a mark can refuse an input (mark_unbacked on some sizes): that is this call's failure
        made = work.inputs(shape, dtype, spec.seed + index, ctx.device, marks)
        start = time.perf_counter()
        with ct.stance(stance):
            work.runner(compiled, made)()  # with a backward pass: forward and backward
        if ctx.device.type == "cuda":
            torch.cuda.synchronize(ctx.device)
    except Exception as exc:  # e.g. FailOnRecompileLimitHit: a state of the run, shown per call
        error = short(exc)
    call_s = time.perf_counter() - start
    new = ct.new_records(before)
    done = [m for m in new if not getattr(m, "fail_type", None)]
    failed = [m for m in new if getattr(m, "fail_type", None)]
    times = [
        m.dynamo_cumulative_compile_time_us for m in new if m.dynamo_cumulative_compile_time_us
    ]
    reasons = [m.recompile_reason for m in new if getattr(m, "recompile_reason", None)]
    fx_hits, fx_misses = (a - b for a, b in zip(_fx_cache(), fx_before, strict=True))
    fail_text = "; ".join(str(getattr(m, "fail_reason", "") or "") for m in failed)
    served = None
    if error:
        event = "failed"
    elif done:
        event, served = "compile", str(done[-1].compile_id)
    elif stance == "force_eager":  # Dynamo is off: a passing guard does not mean it ran compiled
        event = "eager fallback"
    else:
        served = ct.served_by(code, work.locals(made))
        event = "cache hit" if served else "eager fallback"
    guard_failures = ct.guard_failures(log[log_mark:])
    stanced = None
    if made is not None and stance and stance != "default" and not done:
        misses = ct.guard_misses(code, work.locals(made))
        stanced = _stance_reason(stance, event, error, misses)
        guard_failures = guard_failures or (misses if stanced else ())
    return CallRecord(
        index=index,
        shape=shape,
        requested_shape=requested,
        dtype=dtype,
        event=event,
        call_s=call_s,
        compile_s=sum(times) / 1e6 if times else None,
        compile_id=served,
        reason=stanced or (reasons[0] if reasons else None),
        guard_failures=guard_failures,
        guard_count=done[-1].guard_count if done else None,
        fx_cache="hit" if fx_hits else ("miss" if fx_misses else None),
        # what padding adds per call: the inputs read and the output written, padded vs asked
        padding_bytes=work.moved_bytes(shape, dtype) - work.moved_bytes(requested, dtype),
        error=error or (fail_text[:MAX_ERROR] if failed else None),
        stance=stance if stance and stance != "default" else None,
    )


def stance_counts(calls) -> tuple[int, int]:
    """Calls the stance ran eager, and calls it made raise (their reason says so)."""
    turned = [c for c in calls if c.stance and (c.reason or "").startswith("stance ")]
    return (
        sum(c.event == "eager fallback" for c in turned),
        sum(c.event == "failed" for c in turned),
    )


def limit_state(calls: list[CallRecord], limit: int) -> tuple[bool, str | None, str | None]:
    hit = [c for c in calls if is_limit(c.error)]
    if not hit:
        return False, None, None
    first = hit[0]
    raised = [c for c in hit if c.event == "failed"]
    if raised:
        kind = raised[0].error.split(":", 1)[0]
        state = (
            f"hit recompile_limit ({limit}) at call {first.index}: with fullgraph=True that is an "
            f"error, so {len(raised)} call(s) raised {kind} instead of running"
        )
    else:
        eager = [c for c in calls[first.index - 1 :] if c.event == "eager fallback"]
        state = (
            f"hit recompile_limit ({limit}) at call {first.index}: Dynamo stopped compiling "
            f"new shapes, {len(eager)} call(s) ran eager (compiled frames still serve theirs)"
        )
    return True, state, first.error


def summarise(
    base: ModeRun, records: list[CallRecord], times: dict, limit: int, stance: str | None
) -> ModeRun:
    """The mode's totals over its calls, each call with its steady-state time."""
    hit, state, limit_error = limit_state(records, limit)
    calls = []
    for r in records:
        steady = times.get((r.shape, r.dtype))
        calls.append(
            replace(
                r,
                steady_ms=steady[0] if steady else None,
                steady_iqr_ms=steady[1] if steady else None,
            )
        )
    eager, failed = stance_counts(calls)
    return replace(
        base,
        calls=tuple(calls),
        compiles=sum(c.event in COMPILED for c in calls),
        recompiles=sum(c.event == "recompile" for c in calls),
        cache_hits=sum(c.event == "cache hit" for c in calls),
        eager_fallbacks=sum(c.event == "eager fallback" for c in calls),
        failed_calls=sum(c.event == "failed" for c in calls),
        compile_s=sum(c.compile_s or 0.0 for c in calls),
        recompile_limit=limit,
        limit_hit=hit,
        limit_state=state,
        limit_error=limit_error,
        stance=stance if stance and stance != "default" else None,
        stance_eager=eager,
        stance_failed=failed,
    )
