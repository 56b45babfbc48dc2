"""The fix PyTorch suggests for a recompile: mark the changing dim dynamic, else (a recompile no
mark fixes, such as a dtype change) the eager_on_recompile stance."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any

from runtime_lab import marks
from runtime_lab.recompiles.info import RECOMPILE_MODES
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


def _dim(result: RecompilesResult, call: CallRecord, expected: int, actual: int) -> str:
    """The workload dim that went from expected to actual at this call, by name where known."""
    for i, name in enumerate(result.dim_names):
        if len(call.shape) > i and call.shape[i] == actual:
            return f"{name} ({expected} → {actual})"
    return f"{expected} → {actual}"


def suggestion(
    result: RecompilesResult, given: str = "", stance: str = "default"
) -> Suggestion | None:
    """The first mode (dynamic=None first) that recompiled because an input's size changed,
    with the input axes its size guards name; else, under the default stance, the first that
    recompiled for a reason no mark fixes, with the eager_on_recompile stance; None when there
    is neither. `given`, `stance`: the run's own mark_dynamic and stance options, kept."""
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
        call, (name, axis, expected, actual) = found[0]
        added = marks.text(tuple(dict.fromkeys((p[0], p[1]) for _, p in found)))
        explanation = (
            f"{mode.mode} recompiled at call {call.index} because {name}'s axis {axis} changed "
            f"size, {_dim(result, call, expected, actual)}. PyTorch's fix for a size that "
            f"varies is to mark it dynamic before the first call, "
            f"torch._dynamo.mark_dynamic({name}, {axis}), for one graph over every size (its "
            f"PGO log suggests the whole input: TORCH_COMPILE_DYNAMIC_SOURCES=\"L['{name}']\"). "
            f"Applying it runs this spec again with mark_dynamic {added} in every mode."
        )
        return Suggestion(
            mode=mode.mode,
            call=call.index,
            reason=call.reason or "",
            mark_dynamic=marks.merged(given, added),
            added=added,
            explanation=explanation,
        )
    return None


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
