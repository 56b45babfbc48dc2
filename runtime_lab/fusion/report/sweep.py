"""What a sweep's compiled points timed: static kernels, or the recompile trap's dynamic one."""

from __future__ import annotations

from runtime_lab.fusion.result import FusionResult, SweepPoint


def notes(result: FusionResult) -> list[str]:
    """One line per thing a reader of the sweep charts must know about its compiled points."""
    compiled = [p for p in result.sweep if p.compiled]
    if not compiled:
        if any(p.mode != "eager" and not p.mode.startswith("cuda-graph") for p in result.sweep):
            return [
                "Sweep recorded before the lab said which kernel served each point: a compiled "
                "mode's points after the first size may have timed one dynamic kernel (one "
                "function reused over the sizes), not the static kernel the headline timed."
            ]
        return []
    found = [_trap(compiled)] if any(p.compiled == "reuse" for p in compiled) else []
    if any(p.compiled == "fresh" for p in compiled):
        found.append(
            "Sweep, fresh: each size's compiled points timed a static kernel compiled for that "
            "size, as the headline's was."
        )
    if cost := _cost(compiled):
        found.append(cost)
    if any(p.kernel is None for p in compiled):
        found.append(
            "Sweep: this torch recorded no node shapes, so some points' kernels are unknown."
        )
    return found


def _trap(points: list[SweepPoint]) -> str:
    """Where one function reused over the sizes turned dynamic, per mode."""
    turned = {}
    for p in points:
        if p.compiled == "reuse" and p.kernel == "dynamic":
            turned.setdefault(p.mode, p.side)
    if not turned:
        return (
            "Sweep, reuse: one function per mode over every size; each size compiled a static "
            "kernel (dynamic=false keeps Dynamo from making shapes dynamic)."
        )
    where = ", ".join(f"{mode} from {side}²" for mode, side in turned.items())
    return (
        f"Sweep, reuse: a dynamic kernel served {where} on. One compiled function called with a "
        "new size makes Dynamo recompile with dynamic shapes (automatic dynamic), and that kernel "
        "then serves every size, the first one too; the headline timed a static kernel."
    )


def _cost(points: list[SweepPoint]) -> str | None:
    """The trap's cost where a size was timed both ways: reused (dynamic) ÷ fresh (static)."""
    fresh = {(p.mode, p.side): p for p in points if p.compiled == "fresh"}
    ratios = [
        (p.mode, p.side, p.median_ms / fresh[(p.mode, p.side)].median_ms)
        for p in points
        if p.compiled == "reuse" and p.kernel == "dynamic" and (p.mode, p.side) in fresh
        if fresh[(p.mode, p.side)].median_ms > 0
    ]
    if not ratios:
        return None
    low, high = min(r for *_, r in ratios), max(r for *_, r in ratios)
    span = f"{low:.2f}×" if abs(high - low) < 0.005 else f"{low:.2f}× to {high:.2f}×"
    return (
        f"The trap's cost: the reused dynamic kernel took {span} the time of the static kernel "
        f"compiled for the same size (median per call, {len(ratios)} size and mode pairs; "
        "above 1× the dynamic kernel is slower)."
    )
