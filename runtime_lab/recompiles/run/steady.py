"""Recompiles, the measuring part: the marks, and steady-state times (compiled and eager)."""

from __future__ import annotations

from collections.abc import Callable

from runtime_lab.lab.base import Context
from runtime_lab.lab.timing import measure
from runtime_lab.recompiles.result import CallRecord
from runtime_lab.recompiles.run.inputs import Work
from runtime_lab.results import Stats, stats
from runtime_lab.shapes import entry_text
from runtime_lab.spec import RunSpec

# mark → (module, name): looked up when a mode starts, so a torch that lacks one fails that
# mode with the reason while the other modes still run (no version guessed: the name decides)
MARKS = {
    "mark_dynamic": ("torch._dynamo", "mark_dynamic"),
    "maybe_mark_dynamic": ("torch._dynamo", "maybe_mark_dynamic"),
    "mark_unbacked": ("torch._dynamo.decorators", "mark_unbacked"),
}
Marks = Callable | None  # the mark function applied to the inputs' marked axes (run_inputs)


def _mark_function(kind: str) -> Callable | None:
    """The mark function of this torch, or None; named modules only (no import by string)."""
    module, name = MARKS[kind]
    try:
        if module == "torch._dynamo.decorators":
            from torch._dynamo import decorators as found
        else:
            import torch._dynamo as found
    except ImportError:
        return None
    fn = getattr(found, name, None)
    return fn if callable(fn) else None


def missing_mark(kind: str) -> str | None:
    """Why this torch cannot run the mark, or None when it can."""
    module, name = MARKS[kind]
    found = _mark_function(kind)
    return None if found else f"needs a newer torch: {module}.{name} is missing"


def marks_for(kind: str | None) -> Marks:
    return None if kind is None else _mark_function(kind)


def _time_each(
    fn, work: Work, calls, spec: RunSpec, ctx: Context, marks, label: str
) -> dict[tuple, Stats | None]:
    """Steady-state stats of fn per distinct (shape, dtype), each with inputs of its own."""
    found: dict[tuple, Stats | None] = {}
    for index, shape, dtype in calls:
        if (shape, dtype) in found:
            continue
        text = entry_text(shape, dtype)
        ctx.progress(f"{label} {text}: timing", None, None)
        made = work.inputs(shape, dtype, spec.seed + index, ctx.device, marks)
        try:
            t = measure(
                work.runner(fn, made),  # the spec's pass: fn(*made), or a training step
                device=ctx.device,
                label=f"{label} {text}",
                warmup=spec.warmup,
                repeat=spec.repeat,
                l2_flush=spec.l2_flush,
                progress=ctx.progress,
            )
            found[(shape, dtype)] = stats(t.primary_ms)
        except Exception:  # e.g. a shape that only ever failed: no steady state to show
            found[(shape, dtype)] = None
    return found


def steady_times(
    compiled, work: Work, records: list[CallRecord], spec: RunSpec, ctx: Context, marks, label
):
    """Median and IQR per call of each distinct input once compiled (frames stay as they are)."""
    calls = [(r.index, r.shape, r.dtype) for r in records if r.event != "failed"]
    timed = _time_each(compiled, work, calls, spec, ctx, marks, label)
    return {key: (s.median, s.iqr) if s else None for key, s in timed.items()}


def eager_times(work: Work, calls, spec: RunSpec, ctx: Context) -> dict[tuple, float | None]:
    """Eager's median per distinct input: the reference a compiled call is compared with."""
    numbered = [(i, shape, dtype) for i, (shape, dtype) in enumerate(calls, start=1)]
    timed = _time_each(work.fn, work, numbered, spec, ctx, None, "eager")
    return {key: s.median if s else None for key, s in timed.items()}
