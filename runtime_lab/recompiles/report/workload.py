"""What a recompiles run of a catalog workload says: its named dims, per mode what happened
against what the seed's rules lead one to expect (runs from before the catalog: nothing)."""

from __future__ import annotations

from runtime_lab import passes
from runtime_lab.recompiles.report import expect
from runtime_lab.recompiles.report.figures import RecompilesFigures, mode_label
from runtime_lab.recompiles.result import CallRecord, ModeRun, RecompilesResult
from runtime_lab.report import Metric

EXPECT = {  # mode → what the seed's rules say it does with a sequence
    "dynamic=False": "one graph per distinct shape",
    "bucketed": "one graph per distinct padded shape",
    "dynamic=None": "static first, then a recompile as each dim starts changing (dynamic after)",
    "dynamic=True": "one graph, every dim dynamic from the first call",
    "mark_dynamic": "one graph while only marked dims change",
    "maybe_mark_dynamic": "one graph while only marked dims change (a hint)",
    "mark_unbacked": "one graph while only marked dims change, sizes 0 and 1 included",
}


def workload_run(result: RecompilesResult) -> bool:
    """Recorded since the workload catalog (older runs keep the report they had)."""
    return result.workload is not None and len(result.dim_names) > 0


def shape_of(entry: str) -> tuple[int, ...]:
    """'512x4096:float16' → (512, 4096)."""
    return tuple(int(n) for n in entry.split(":")[0].split("x"))


def sizes(result: RecompilesResult, dim: int) -> list[int]:
    """The sizes the sequence gives dim `dim`, each once, in order."""
    shapes = [shape_of(e) for e in result.sequence]
    return list(dict.fromkeys(s[dim] for s in shapes if len(s) > dim))


def varied_dims(result: RecompilesResult) -> list[int]:
    """The named dims whose size changes along the sequence, as indices into each shape."""
    return [i for i in range(len(result.dim_names)) if len(sizes(result, i)) > 1]


def varied(result: RecompilesResult) -> list[str]:
    """The named dims whose size changes along the sequence."""
    return [result.dim_names[i] for i in varied_dims(result)]


def head(result: RecompilesResult, device: str) -> str:
    """'recompiles rms_norm (tokens × hidden) CPU eager, 4 calls along tokens'."""
    along = varied(result)
    calls = f"{len(result.sequence)} calls" + (f" along {', '.join(along)}" if along else "")
    dims = " × ".join(result.dim_names)
    step = passes.said(result.training_pass)
    return f"recompiles {result.workload} ({dims}) {device} {result.backend}{step}, {calls}"


def of(result: RecompilesResult) -> str:
    """' of rms_norm (tokens × hidden)' for a table's title; '' for a run from before."""
    return f" of {result.workload} ({' × '.join(result.dim_names)})" if workload_run(result) else ""


def marked_names(result: RecompilesResult) -> str:
    return ", ".join(result.dim_names[d] for d in result.dims if d < len(result.dim_names))


def metrics(result: RecompilesResult) -> list[Metric]:
    if not workload_run(result):
        return []
    dims = " × ".join(result.dim_names)
    help_text = (
        f"marked by the mark modes and padded when bucketing: {marked_names(result)} "
        f"(on {result.marked or 'the inputs that carry it'}); an input axis is marked when it "
        "carries the dim: its size is the dim's and follows it when the dim changes"
    )
    if result.params:
        help_text += f"; parameters {result.params}"
    # the workload alone fits the metric; its dims go below it (view.fmt.metric_parts)
    value = f"{result.workload} ({dims}; marked: {marked_names(result)})"
    return [Metric("workload · marked dims", value, help_text)]


def _sizes(result: RecompilesResult, calls: tuple[CallRecord, ...]) -> str:
    """'tokens: 4 sizes' for each dim that changes over the calls."""
    parts = []
    for i, name in enumerate(result.dim_names):
        count = len({c.requested_shape[i] for c in calls if len(c.requested_shape) > i})
        if count > 1:
            parts.append(f"{name}: {count} sizes")
    return f" ({'; '.join(parts)})" if parts else ""


def _changed(result: RecompilesResult, a: tuple[int, ...], b: tuple[int, ...]) -> list[str]:
    return [f"{d} {a[i]} → {b[i]}" for i, d in enumerate(result.dim_names) if a[i] != b[i]]


def _what(result: RecompilesResult, m: ModeRun) -> str:
    """What the mode's calls did along the named dims, in words."""
    calls, names = m.calls, result.dim_names
    first = calls[0].shape
    if m.mode == "dynamic=None":
        made, steps = set(), []
        for c in (c for c in calls if c.event == "recompile"):
            new = [
                names[i] for i, n in enumerate(c.shape) if n != first[i] and names[i] not in made
            ]
            made |= set(new)
            steps.append(
                f"call {c.index} made {', '.join(new)} dynamic"
                if new
                else f"call {c.index} recompiled ({c.dtype})"
            )
        static = [d for d in names if d not in made]
        text = f": {'; '.join(steps)}" if steps else ""
        if steps and static:
            text += f", {', '.join(static)} {'stays' if len(static) == 1 else 'stay'} static"
        return text
    if m.mode in expect.MARKS:
        text = f" with {marked_names(result)} marked"
        off = [
            c
            for c in calls
            if any(c.shape[i] != first[i] for i in range(len(names)) if i not in result.dims)
        ]
        if off:
            moved = ", ".join(_changed(result, first, off[0].shape))
            text += f"; call {off[0].index} changed a dim not marked ({moved})"
        return text
    if m.mode in expect.STATIC:
        return f" of {len({(c.shape, c.dtype) for c in calls})} distinct shapes"
    return ""


def _line(result: RecompilesResult, m: ModeRun) -> str:
    calls = [(c.shape, c.dtype) for c in m.calls]
    expected = expect.compiles(m.mode, calls, result.dims, result.mark_dynamic_dims)
    word = "compile" if m.compiles == 1 else "compiles"
    ran = mode_label(result, m.mode, short=True)  # a marked dynamic=False is not static shapes
    text = f"{result.workload} under {ran}: {m.compiles} {word} for {len(calls)} calls"
    text += _sizes(result, m.calls) + _what(result, m)
    if result.mark_dynamic:
        text += f", mark_dynamic {result.mark_dynamic} on every call"
    rule = EXPECT[m.mode] + (", the marked dims dynamic throughout" if result.mark_dynamic else "")
    if m.compiles == expected:
        return f"{text}. As expected: {rule}."
    return (
        f"{text}. Not what the seed's rules give ({expected}: {rule}): read the "
        "recompile reasons below for what Dynamo guarded on instead."
    )


def notes(result: RecompilesResult, fig: RecompilesFigures) -> list[str]:
    """Per mode, what happened against what to expect; modes whose calls a stance, the limit or
    an error changed are left to their own notes."""
    if not workload_run(result):
        return []
    by = {m.mode: m for m in result.modes}
    found = []
    for name in fig.order:
        m = by[name]
        if m.mode in EXPECT and m.calls and not (m.error or m.limit_hit or m.stance):
            found.append(_line(result, m))
    return found


def changed_column(result: RecompilesResult, shapes: list[tuple[int, ...]]) -> list[str]:
    """Per call of one mode, the named dims that changed since the call before."""
    found, before = [], None
    for shape in shapes:
        found.append(", ".join(_changed(result, before, shape)) if before else "")
        before = shape
    return found
