"""The fix PyTorch suggests for a recompile: mark the changing dims dynamic, else (a recompile no
mark fixes, such as a dtype change) the eager_on_recompile stance."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any

from runtime_lab import marks
from runtime_lab.recompiles.info import RECOMPILE_MODES
from runtime_lab.recompiles.report import workload as rw
from runtime_lab.recompiles.report.figures import mode_label
from runtime_lab.recompiles.result import CallRecord, ModeRun, RecompilesResult

# Dynamo's guard failure for a size: "tensor 'x' size mismatch at index 0. expected 8, actual 16"
SIZE = re.compile(r"tensor '([^']+)' size mismatch at index (\d+)\. expected (\d+), actual (\d+)")
# the default torch.compile first: its recompile is the one a user meets
PREFERRED = ("dynamic=None", "dynamic=False", "bucketed")
OPTION = "mark_dynamic"
STANCE_OPTION = "stance"
# torch.compiler.set_stance's answer to recompiles after warm-up: a call that would recompile
# runs eagerly, and the graphs compiled so far still serve the calls their guards pass
STANCE = "eager_on_recompile"


@dataclass(frozen=True)
class Suggestion:
    """What to apply to a run whose recompile a changing dim explains, and why."""

    mode: str  # the mode whose recompile it explains
    call: int  # the call that recompiled
    reason: str  # Dynamo's guard failure, as recorded
    mark_dynamic: str  # the option's new value: the run's own marks and these ("x:0")
    added: str  # the pairs this suggestion adds ("x:0"); "" for a stance
    explanation: str  # one sentence: what changed, PyTorch's fix, what the button does
    stance: str = ""  # the stance option's new value ("eager_on_recompile"); "": left as it was

    @property
    def fix(self) -> str:
        """What applying it changes, in the options' words: "mark_dynamic x:0"."""
        return f"stance {self.stance}" if self.stance else f"mark_dynamic {self.added}"


def _ordered(result: RecompilesResult) -> list[ModeRun]:
    rank = {m: i for i, m in enumerate(PREFERRED)}
    usable = [m for m in result.modes if not m.error]
    return sorted(usable, key=lambda m: rank.get(m.mode, len(rank)))


def _pairs(call: CallRecord) -> list[tuple[str, int, int, int]]:
    """(input, axis, expected, actual) of each size guard the call failed."""
    texts = [t for t in (call.reason, *call.guard_failures) if t]
    return [(f[1], int(f[2]), int(f[3]), int(f[4])) for t in texts for f in SIZE.finditer(t)]


def _carried(result: RecompilesResult) -> list[marks.Marks]:
    """Per named dim, the input axes that carry it, as the run recorded them (before: none)."""
    return [marks.parse(text) for text in result.dim_axes]


def _dim(result: RecompilesResult, pair: tuple[str, int]) -> int | None:
    """The workload dim an input axis carries, as the run recorded it (None: not recorded)."""
    return next((d for d, pairs in enumerate(_carried(result)) if pair in pairs), None)


def _dim_name(result: RecompilesResult, dim: int) -> str:
    return result.dim_names[dim] if dim < len(result.dim_names) else f"dim {dim}"


def _changed(result: RecompilesResult, call: CallRecord, guard) -> str:
    """'rows (256 → 512)': the dim the guard's axis carries, by name where known."""
    name, axis, expected, actual = guard
    dim = _dim(result, (name, axis))
    if not result.dim_axes:  # a run from before: the dim of the guard's size, when only one is
        fits = [i for i, n in enumerate(call.shape[: len(result.dim_names)]) if n == actual]
        dim = fits[0] if len(fits) == 1 else None
    sizes = f"{expected} → {actual}"
    return f"{_dim_name(result, dim)} ({sizes})" if dim is not None else sizes


def _unmarked_dims(result: RecompilesResult, done: set) -> list[int]:
    """The dims the sequence varies that an input axis carries and no mark covers yet."""
    carried = _carried(result)
    return [
        d
        for d in rw.varied_dims(result)
        if d < len(carried)
        and carried[d]
        and d not in result.mark_dynamic_dims
        and not set(carried[d]) & done
    ]


def _wanted(result: RecompilesResult, guards, done: set) -> tuple[marks.Marks, list[int]]:
    """The pairs to mark, and the dims they mark: one input axis per dim the sequence varies
    that no mark covers (the option marks every axis carrying it), since Dynamo's guard names
    only the first size that failed (both dims of 256x256 → 512x512 change, the guard says
    index 0); then any axis a size guard named that none of those dims covers."""
    dims = _unmarked_dims(result, done)
    carried = _carried(result)
    covered = {p for d in dims for p in carried[d]}
    pairs = [carried[d][0] for d in dims]
    pairs += [(g[0], g[1]) for g in guards if (g[0], g[1]) not in covered]
    return tuple(dict.fromkeys(pairs)), dims


def suggestion(
    result: RecompilesResult, given: str = "", stance: str = "default"
) -> Suggestion | None:
    """The first mode (dynamic=None first) that recompiled because an input's size changed,
    with a mark on every dim the sequence varies that no mark covers (one press: the guard
    names only the first size that failed) and any other axis its size guards name; else,
    under the default stance, the first that recompiled for a reason no mark fixes, with the
    eager_on_recompile stance; None when there is neither. `given`, `stance`: the run's own
    mark_dynamic and stance options, kept."""
    if found := _marking(result, given):
        return found
    # a stance already set (or one this torch lacked, run as default) is the run's own choice
    return _stance(result, given) if stance == "default" and result.stance == "default" else None


def _marking(result: RecompilesResult, given: str) -> Suggestion | None:
    done = set(marks.parse(result.mark_dynamic)) | set(marks.parse(given))
    for mode in _ordered(result):
        recompiled = [c for c in mode.calls if c.event == "recompile"]
        found = [(c, p) for c in recompiled for p in _pairs(c) if (p[0], p[1]) not in done]
        if not found:
            continue
        call, guard = found[0]
        pairs, dims = _wanted(result, [p for _, p in found], done)
        added = marks.text(pairs)
        return Suggestion(
            mode=mode.mode,
            call=call.index,
            reason=call.reason or "",
            mark_dynamic=marks.merged(given, added),
            added=added,
            explanation=_why_marks(result, (mode.mode, call, guard), pairs, dims, given),
        )
    return None


def _why_marks(
    result: RecompilesResult, seen: tuple, pairs: marks.Marks, dims: list[int], given: str
) -> str:
    """What changed, PyTorch's fix, and every mark the button applies, before it is pressed.
    seen: (mode, call, guard) of the recompile that is explained."""
    mode, call, guard = seen
    name, axis = guard[0], guard[1]
    text = (
        f"{mode} recompiled at call {call.index} because {name}'s axis {axis} changed size, "
        f"{_changed(result, call, guard)}."
    )
    if len(dims) > 1:
        varied = " and ".join(
            f"{_dim_name(result, d)} ({', '.join(map(str, rw.sizes(result, d)))})" for d in dims
        )
        text += (
            f" The sequence varies {varied}: Dynamo's guard names only the first size that "
            "failed, so a mark on that axis alone would leave the others recompiling."
        )
    calls = " and ".join(f"torch._dynamo.mark_dynamic({n}, {a})" for n, a in pairs)
    sources = ",".join(f"L['{n}']" for n in dict.fromkeys(n for n, _ in pairs))
    added, merged = marks.text(pairs), marks.merged(given, marks.text(pairs))
    text += (
        f" PyTorch's fix for a size that varies is to mark it dynamic before the first call, "
        f"{calls}, for one graph over every size (its PGO log suggests the whole input: "
        f'TORCH_COMPILE_DYNAMIC_SOURCES="{sources}"). Applying it runs this spec again with '
        f"mark_dynamic {merged}{f' ({added} added)' if merged != added else ''} in every mode"
    )
    if dims:
        carried = _carried(result)
        names = " and ".join(_dim_name(result, d) for d in dims)
        each = "; ".join(f"{_dim_name(result, d)}: {marks.text(carried[d])}" for d in dims)
        them = "them" if len(dims) > 1 else "it"
        text += (
            f": {names} dynamic from the first call, on every input axis carrying {them} ({each})"
        )
    return text + "."


def _stance(result: RecompilesResult, given: str) -> Suggestion | None:
    """A recompile that no mark fixes (what _marking found nothing for) in a mode the user
    picked (the what-ifs, bucketed and reduce-overhead, recompile per bucket by design)."""
    for mode in (m for m in _ordered(result) if m.mode in RECOMPILE_MODES):
        call = next((c for c in mode.calls if c.event == "recompile"), None)
        if call is None:
            continue
        why = f"because {call.reason}" if call.reason else "for a reason Dynamo did not log"
        explanation = (
            f"{mode.mode} recompiled at call {call.index} {why}, which no mark_dynamic fixes "
            f"(a mark covers an input's sizes). PyTorch's way to stop recompiling after warm-up "
            f'is a compiler stance, torch.compiler.set_stance("{STANCE}"): a call that would '
            f"recompile runs eagerly and the graphs compiled so far still serve the calls they "
            f"fit. Applying it runs this spec again with stance {STANCE} from the second call on."
        )
        return Suggestion(
            mode=mode.mode,
            call=call.index,
            reason=call.reason or "",
            mark_dynamic=marks.merged(given),
            added="",
            explanation=explanation,
            stance=STANCE,
        )
    return None


def applied(spec: dict[str, Any], found: Suggestion) -> dict[str, Any]:
    """The stored spec (its dict form) with the suggestion applied: what the new run runs."""
    new = copy.deepcopy(spec)
    options = new.setdefault("options", {})
    if found.added:
        options[OPTION] = found.mark_dynamic
    if found.stance:
        options[STANCE_OPTION] = found.stance
    return new


def for_run(spec: dict[str, Any], result: RecompilesResult) -> Suggestion | None:
    """suggestion() for a stored run, its own marks and stance read from its spec."""
    options = spec.get("options") or {}
    given = str(options.get(OPTION) or "")
    return suggestion(result, given, str(options.get(STANCE_OPTION) or "default"))


def unique_graphs(result: RecompilesResult) -> dict[str, int]:
    """Each mode's unique graphs (failed modes left out): the before and after of a fix."""
    return {m.mode: m.unique_graphs for m in result.modes if not m.error}


def before_after(before: RecompilesResult, after: RecompilesResult) -> list[tuple[str, int, int]]:
    """(mode, graphs before, graphs after) for the modes both runs ran."""
    a, b = unique_graphs(before), unique_graphs(after)
    return [(mode, a[mode], b[mode]) for mode in a if mode in b]


def ran_as(result: RecompilesResult) -> dict[str, str]:
    """Each mode named as it ran: 'dynamic=False + mark_dynamic x:0,y:0' where the option marked
    every mode's inputs (such a dynamic=False is not static shapes)."""
    return {m.mode: mode_label(result, m.mode) for m in result.modes}


def marks_line(before: RecompilesResult, after: RecompilesResult, names: tuple[str, str]) -> str:
    """The marks each run put on every mode, in words ('' where neither marked any); names:
    how the two runs are called ('run #2', 'run #3')."""
    if not (before.mark_dynamic or after.mark_dynamic):
        return ""
    said = [
        f"{name} ran every mode with mark_dynamic {r.mark_dynamic}"
        if r.mark_dynamic
        else f"{name} ran without marks"
        for name, r in zip(names, (before, after), strict=True)
    ]
    return "; ".join(said) + " (the option): a marked dynamic=False is not static shapes."
