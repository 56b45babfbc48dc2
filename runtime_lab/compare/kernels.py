"""Two runs' kernels side by side: only in one, or matched by name or by the source ops they run."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

SAME_NAME, SAME_OPS, FUSED, SPLIT = "same name", "same ops", "fused", "split"
# an Inductor kernel's name: its kind, "fused", its ops, an index (triton_poi_fused_add_mul_0)
_INDUCTOR = re.compile(r"^(?:graph_\d+_)?((?:triton|cpp)_(?:[a-z]+_)?fused)_(\w*?)(?:_\d+)?$")
_ATEN = re.compile(r"^aten::(\w+)$")
# CUDA's eager kernels carry their op in a functor (CUDAFunctor_add, MulFunctor) or a name
# (silu_kernel); GEMMs in a library's name
_GEMM = re.compile(r"gemm|xmma|nvjet|cutlass|cublas", re.IGNORECASE)
_GENERIC = {
    "binary",
    "unary",
    "aunary",
    "bunary",
    "opaque",
    "vectorized",
    "elementwise",
    "unrolled",
}
_INDEX = re.compile(r"_\d+$")
COLUMNS = ["modes", "match", "kernel A", "µs/call A", "launch A", "kernel B", "µs/call B"]
COLUMNS += ["launch B", "B ÷ A", "ops", "source"]


@dataclass(frozen=True)
class Kernel:
    """One kernel of one mode as the diff reads it: an experiment's compare stage builds them."""

    mode: str
    name: str
    us_per_call: float  # device (CUDA) or self CPU time per call of the workload
    launches_per_call: float
    launch: str = ""  # grid, block, registers, Triton config; "" where there is none (CPU)
    aten_ops: tuple[str, ...] = ()  # the ATen ops it fuses, where provenance recorded them
    lowered_ops: tuple[str, ...] = ()  # the post-grad ops Inductor lowered into it (aten.neg, …)
    source_lines: tuple[str, ...] = ()  # "op.py:21  out = x32 * …", where recorded
    shown: str = ""  # the name a table reads (the experiment's short form); "" the name itself


def _words(op: str) -> frozenset[str]:
    """An op's words: aten._to_copy → {to, copy}; aten::div_ → {div}."""
    bare = op.split("::")[-1].split(".")[-1] if "::" in op else op.removeprefix("aten.")
    return frozenset(w for w in re.split(r"[^a-z0-9]+", bare.lower()) if w)


def canonical(name: str) -> str:
    """A kernel's name without what changes between compiles: the profiler's graph_N_ prefix
    and Inductor's index suffix (graph_0_cpp_fused_add_0 → cpp_fused_add)."""
    found = _INDUCTOR.match(name)
    if found:
        return f"{found[1]}_{found[2]}" if found[2] else found[1]
    return name


def ops_of(kernel: Kernel) -> tuple[frozenset[str], str]:
    """The words of the source ops a kernel runs, and where they came from: the recorded
    provenance, else its name (Inductor's fused_<ops>, aten::<op>, a CUDA functor)."""
    if kernel.aten_ops:
        return _all_words(kernel.aten_ops), "provenance"
    return name_ops(kernel.name), "name" if name_ops(kernel.name) else "none"


def _all_words(ops: Sequence[str]) -> frozenset[str]:
    return frozenset().union(*(_words(op) for op in ops))


def covers(kernel: Kernel) -> frozenset[str]:
    """Every op word the kernel is known to run: provenance's, the lowered ops' and its name's
    (a fused kernel's provenance names aten.silu where eager ran silu, its name the same)."""
    return _all_words(kernel.aten_ops) | _all_words(kernel.lowered_ops) | name_ops(kernel.name)


def name_ops(name: str) -> frozenset[str]:
    """The op words a kernel's name gives: Inductor's fused_<ops>, aten::<op>, a CUDA functor
    or kernel name (CUDAFunctor_add, MulFunctor, sin_kernel_cuda), a GEMM library's name."""
    inductor = _INDUCTOR.match(name)
    if inductor:
        return _words(inductor[2])
    aten = _ATEN.match(name)
    if aten:
        return _words(aten[1])
    if _GEMM.search(name):
        return frozenset({"mm"})
    inner = name[name.find("<") :] if "<" in name else name
    words = [_functor(w) for w in re.findall(r"[A-Za-z_]\w*", inner)]
    specific = [w for w in words if w and w not in _GENERIC]
    return frozenset(specific[-1:])


def _functor(word: str) -> str | None:
    """The op a CUDA kernel's template word names: CUDAFunctor_add, MulFunctor, silu_kernel."""
    if word.startswith("CUDAFunctor_"):
        return word.removeprefix("CUDAFunctor_").lower()
    if word.endswith("Functor"):
        return word.removesuffix("Functor").removeprefix("CUDA").lower() or None
    if word.endswith(("_kernel", "_kernel_cuda")):
        return word.removesuffix("_cuda").removesuffix("_kernel").lower()
    return None


@dataclass(frozen=True)
class Match:
    """Kernels of A and of B that do the same work: one to one, or fused (n → 1), split (1 → n)."""

    how: str
    a: tuple[Kernel, ...]
    b: tuple[Kernel, ...]

    @property
    def a_us(self) -> float:
        return sum(k.us_per_call for k in self.a)

    @property
    def b_us(self) -> float:
        return sum(k.us_per_call for k in self.b)

    @property
    def ratio(self) -> float | None:
        """B's time per call over A's (None where A took none: nothing to divide by)."""
        return self.b_us / self.a_us if self.a_us > 0 else None


@dataclass(frozen=True)
class ModeDiff:
    """One mode of A against one mode of B (the same mode, or the two that differ)."""

    a_mode: str | None
    b_mode: str | None
    matched: tuple[Match, ...]
    only_a: tuple[Kernel, ...]
    only_b: tuple[Kernel, ...]


@dataclass(frozen=True)
class KernelDiff:
    """What the compiler did differently between a baseline run A and a run B."""

    a: str  # the runs' labels: #12
    b: str
    fields: tuple[tuple[str, str, str], ...]  # spec fields that differ: (field, in A, in B)
    modes: tuple[ModeDiff, ...]


def pair_modes(a: Sequence[str], b: Sequence[str]) -> list[tuple[str | None, str | None]]:
    """A mode both runs ran pairs with itself; the rest pair in order (inductor against
    inductor-max-autotune-no-cudagraphs), and what is left pairs with nothing."""
    both = [m for m in a if m in b]
    rest_a, rest_b = [m for m in a if m not in b], [m for m in b if m not in a]
    pairs: list[tuple[str | None, str | None]] = [(m, m) for m in both]
    pairs += list(zip(rest_a, rest_b, strict=False))
    n = min(len(rest_a), len(rest_b))
    pairs += [(m, None) for m in rest_a[n:]] + [(None, m) for m in rest_b[n:]]
    return pairs


def _by_time(kernels: list[Kernel]) -> list[Kernel]:
    return sorted(kernels, key=lambda k: -k.us_per_call)


def match(
    a: Sequence[Kernel], b: Sequence[Kernel]
) -> tuple[list[Match], list[Kernel], list[Kernel]]:
    """Matches, then what is only in A and only in B. In order: the same name (indices and
    the profiler's graph prefix aside); the same set of source ops; a kernel whose ops hold
    the ops of several of the other side's (fused: eager's aten::add, aten::mul → Inductor's
    fused_add_mul)."""
    left, right = _by_time(list(a)), _by_time(list(b))
    found: list[Match] = []
    keys = (
        (lambda k: k.name and canonical(k.name), SAME_NAME),
        (lambda k: _all_words(k.aten_ops), SAME_OPS),  # provenance on both sides
        (lambda k: name_ops(k.name), SAME_OPS),
    )
    for key, how in keys:
        for k in list(left):
            kk = key(k)
            if not kk:
                continue
            other = next((o for o in right if key(o) == kk), None)
            if other is not None:
                found.append(Match(how, (k,), (other,)))
                left.remove(k)
                right.remove(other)
    for big_side, small_side, how in ((right, left, FUSED), (left, right, SPLIT)):
        for big in list(big_side):
            ops = covers(big)
            if len(ops) < 2:
                continue
            parts = [s for s in small_side if ops_of(s)[0] and ops_of(s)[0] <= ops]
            if not parts:
                continue
            for s in parts:
                small_side.remove(s)
            big_side.remove(big)
            pair = (tuple(parts), (big,)) if how == FUSED else ((big,), tuple(parts))
            found.append(Match(how, *pair))
    return found, left, right


def diff_modes(
    a: Mapping[str, Sequence[Kernel]], b: Mapping[str, Sequence[Kernel]]
) -> tuple[ModeDiff, ...]:
    """Each pair of modes (pair_modes) with its kernels matched."""
    found = []
    for a_mode, b_mode in pair_modes(list(a), list(b)):
        matched, only_a, only_b = match(a.get(a_mode, ()), b.get(b_mode, ()))
        found.append(ModeDiff(a_mode, b_mode, tuple(matched), tuple(only_a), tuple(only_b)))
    return tuple(found)


def spec_fields(diffs: pd.DataFrame, a: str, b: str) -> tuple[tuple[str, str, str], ...]:
    """The spec rows of a comparison's differences (comparison.differences) where A and B differ."""
    if diffs.empty:
        return ()
    rows = diffs[(diffs["section"] == "spec") & (diffs[a] != diffs[b])]
    return tuple(
        (f, str(x), str(y)) for f, x, y in zip(rows["field"], rows[a], rows[b], strict=True)
    )


def _label(kernels: Sequence[Kernel]) -> str:
    def one(k: Kernel) -> str:
        launches = k.launches_per_call
        name = k.shown or k.name
        return name if launches == 1 else f"{name} ×{launches:g}"

    return " + ".join(one(k) for k in kernels)


def _ops(kernels: Sequence[Kernel]) -> str:
    found: list[str] = []
    for k in kernels:
        words, origin = ops_of(k)
        if words:
            found.append(f"{', '.join(sorted(words))} ({origin})")
    return " | ".join(dict.fromkeys(found))


def _source(kernels: Sequence[Kernel]) -> str:
    return " | ".join(dict.fromkeys(line for k in kernels for line in k.source_lines))


def _row(pair: str, how: str, a: Sequence[Kernel], b: Sequence[Kernel], ratio) -> dict[str, Any]:
    return {
        "modes": pair,
        "match": how,
        "kernel A": _label(a),
        "µs/call A": sum(k.us_per_call for k in a) if a else None,
        "launch A": " | ".join(dict.fromkeys(k.launch for k in a if k.launch)),
        "kernel B": _label(b),
        "µs/call B": sum(k.us_per_call for k in b) if b else None,
        "launch B": " | ".join(dict.fromkeys(k.launch for k in b if k.launch)),
        "B ÷ A": ratio,
        "ops": _ops(a if len(a) <= len(b) and a else b),
        "source": _source([*a, *b]),
    }


def frame(found: KernelDiff) -> pd.DataFrame:
    """One row per match and per kernel only one side ran, A and B named by their runs; the
    ops column is the one-kernel side's where several kernels match one."""
    rows = []
    for m in found.modes:
        pair = f"{m.a_mode or '—'} → {m.b_mode or '—'}"
        for x in m.matched:
            how = x.how if len(x.a) == len(x.b) else f"{x.how} {len(x.a)} → {len(x.b)}"
            rows.append(_row(pair, how, x.a, x.b, x.ratio))
        rows += [_row(pair, f"only in {found.a}", (k,), (), None) for k in m.only_a]
        rows += [_row(pair, f"only in {found.b}", (), (k,), None) for k in m.only_b]
    names = {c: c.replace(" A", f" {found.a}").replace(" B", f" {found.b}") for c in COLUMNS}
    names["B ÷ A"] = f"{found.b} ÷ {found.a}"
    return pd.DataFrame(rows, columns=COLUMNS).rename(columns=names)


def _kernel_json(k: Kernel) -> dict[str, Any]:
    words, origin = ops_of(k)
    return {
        "mode": k.mode,
        "name": k.name,
        "us_per_call": k.us_per_call,
        "launches_per_call": k.launches_per_call,
        "launch": k.launch,
        "ops": sorted(words),
        "ops_from": origin,
        "source_lines": list(k.source_lines),
    }


def to_json(found: KernelDiff) -> dict[str, Any]:
    """The diff as JSON-ready data: `kernel_diff` of compare --json."""
    return {
        "a": found.a,
        "b": found.b,
        "spec_differences": [{"field": f, "a": x, "b": y} for f, x, y in found.fields],
        "modes": [
            {
                "a_mode": m.a_mode,
                "b_mode": m.b_mode,
                "matched": [
                    {
                        "how": x.how,
                        "a": [_kernel_json(k) for k in x.a],
                        "b": [_kernel_json(k) for k in x.b],
                        "a_us_per_call": x.a_us,
                        "b_us_per_call": x.b_us,
                        "ratio": x.ratio,
                    }
                    for x in m.matched
                ],
                "only_a": [_kernel_json(k) for k in m.only_a],
                "only_b": [_kernel_json(k) for k in m.only_b],
            }
            for m in found.modes
        ],
    }


def summary(found: KernelDiff) -> str:
    """One line: how many kernels matched, fused, and ran only on one side, per mode pair."""
    parts = []
    for m in found.modes:
        fused = sum(x.how in (FUSED, SPLIT) for x in m.matched)
        same = len(m.matched) - fused
        text = f"{m.a_mode or '—'} → {m.b_mode or '—'}: {same} matched"
        text += f", {fused} fused or split" if fused else ""
        text += f", {len(m.only_a)} only in {found.a}, {len(m.only_b)} only in {found.b}"
        parts.append(text)
    return "; ".join(parts)


def readable(table: pd.DataFrame) -> pd.DataFrame:
    """frame() for reading: times to 3 digits, the ratio as "0.3×", blanks for what is missing."""
    shown = table.copy()
    for column in shown.columns:
        if column.startswith("µs/call"):
            shown[column] = [_number(v) for v in shown[column]]
        elif "÷" in column:
            shown[column] = ["" if _missing(v) else f"{v:.3g}×" for v in shown[column]]
    return shown


def _missing(value: Any) -> bool:
    return value is None or value != value  # NaN is not equal to itself


def _number(value: Any) -> str:
    return "" if _missing(value) else f"{value:.3g}"
