"""What the seed's rules lead one to expect of a sequence per dynamic mode: compiles (no torch)."""

from __future__ import annotations

from dataclasses import dataclass

STATIC = ("dynamic=False", "bucketed", "reduce-overhead")  # one frame per distinct shape
MARKS = ("mark_dynamic", "maybe_mark_dynamic", "mark_unbacked")

Call = tuple[tuple[int, ...], str]  # (shape as run, dtype)


@dataclass(frozen=True)
class Frame:
    """A compiled frame as its guards see it: the dtype, and per dim the size it is specialized
    to (None: dynamic, any size; sizes 0 and 1 only where unbacked)."""

    dtype: str
    sizes: tuple[int | None, ...]
    unbacked: bool = False

    def fits(self, shape: tuple[int, ...], dtype: str) -> bool:
        if dtype != self.dtype or len(shape) != len(self.sizes):
            return False
        return all(
            n == s if s is not None else (self.unbacked or n >= 2)
            for n, s in zip(shape, self.sizes, strict=True)
        )


def _frame(shape, dtype: str, dynamic: set[int], unbacked: bool) -> Frame:
    # a backed dynamic size of 0 or 1 is specialized all the same (0/1 specialization)
    sizes = tuple(None if i in dynamic and (unbacked or n >= 2) else n for i, n in enumerate(shape))
    return Frame(dtype, sizes, unbacked)


def frames(
    mode: str, calls: list[Call], marked: tuple[int, ...], forced: tuple[int, ...] = ()
) -> list[int]:
    """Per call, the index of the frame expected to run it; a new index is a compile. The model:
    dynamic=False one frame per (shape, dtype); dynamic=True every dim dynamic from the start;
    dynamic=None (automatic dynamic) static first, and a recompile makes dynamic every dim whose
    size differs from the first call's; the marks (under dynamic=None) make their dims dynamic
    from the first call (mark_unbacked without 0/1 specialization), the others as dynamic=None;
    `forced` (the mark_dynamic option) dims are dynamic from the first call in every mode, the
    static ones included (Dynamo honours mark_dynamic under dynamic=False). A new dtype is a new
    frame in every mode."""
    found: list[Frame] = []
    ran: list[int] = []
    if not calls:
        return ran
    first = calls[0][0]
    everything = set(range(len(first)))
    dynamic = everything if mode == "dynamic=True" else set(marked if mode in MARKS else ())
    dynamic |= set(forced)
    unbacked = mode == "mark_unbacked"
    for shape, dtype in calls:
        hit = next((i for i in reversed(range(len(found))) if found[i].fits(shape, dtype)), None)
        if hit is None:
            if (mode == "dynamic=None" or mode in MARKS) and found:  # automatic dynamic
                dynamic |= {i for i, n in enumerate(shape) if n != first[i]}
            kept = set(forced) if mode in STATIC else dynamic
            found.append(_frame(shape, dtype, kept, unbacked))
            hit = len(found) - 1
        ran.append(hit)
    return ran


def compiles(
    mode: str, calls: list[Call], marked: tuple[int, ...], forced: tuple[int, ...] = ()
) -> int:
    """How many compiles the model expects of the mode (not capped by recompile_limit)."""
    return len(set(frames(mode, calls, marked, forced)))
