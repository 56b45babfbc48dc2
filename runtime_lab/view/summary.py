"""The Summary tab's parts: key figures under their glossary labels, prose within a word budget."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from runtime_lab.glossary import registry as glossary
from runtime_lab.glossary import units
from runtime_lab.report import Metric, Summary
from runtime_lab.view.fmt import fmt_bytes, fmt_ms, fmt_seconds

PROSE_WORDS = 150  # a Summary read in ten seconds: about this many words, no more
MAX_FIGURES = 8  # the pairs people compare, on one screen


def figure(experiment: str, path: str, value: str, detail: str | None = None) -> Metric:
    """A key figure named as the glossary names it, with its tooltip (how, when not to trust)."""
    return Metric(
        glossary.label(experiment, path), value, glossary.help_text(experiment, path, detail)
    )


def words(texts: Iterable[str]) -> int:
    """The words a reader reads in `texts` (markdown marks and numbers count as they show)."""
    return sum(len(re.findall(r"\S+", t)) for t in texts)


def first_sentence(text: str) -> str:
    """A note's first sentence (to its first '. '), the rest left to the Notes."""
    found = re.search(r"\.(\s|$)", text)
    return text if found is None else text[: found.start()] + "."


def fit(texts: Sequence[str], budget: int = PROSE_WORDS) -> tuple[str, ...]:
    """The texts in order while they fit `budget` words in all; a text that would not fit is
    cut to its first sentence, or left out (it is still in the Notes)."""
    kept: list[str] = []
    for text in texts:
        for candidate in (text, first_sentence(text)):
            if words([*kept, candidate]) <= budget:
                kept.append(candidate)
                break
    return tuple(kept)


def pairs(*found: tuple[Metric | None, ...]) -> tuple[tuple[Metric, ...], ...]:
    """Pairs of key figures without the missing ones, at most MAX_FIGURES figures in all."""
    kept: list[tuple[Metric, ...]] = []
    count = 0
    for pair in found:
        shown = tuple(m for m in pair if m is not None)
        if shown and count + len(shown) <= MAX_FIGURES:
            kept.append(shown)
            count += len(shown)
    return tuple(kept)


def value_text(experiment: str, path: str, value: Any) -> str:
    """A key figure's value as its glossary unit reads ("1.5 MiB", "0.41 ms", "3", "2.0×")."""
    if value is None:
        return "—"
    unit = glossary.unit(experiment, path)
    if isinstance(value, bool) or unit == "flag":
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ", ".join(map(str, value)) if unit != "count" else str(len(value))
    if not isinstance(value, int | float):
        return str(value)
    formats = {
        "bytes": lambda v: fmt_bytes(int(v)),
        "ms": fmt_ms,
        "us": lambda v: fmt_ms(v / 1e3),
        "s": fmt_seconds,
        "%": lambda v: f"{v:.0f} %",
        "x": lambda v: f"{v:.2f}×",
        "number": units.number,  # 3,140 and 0, never 3.14e+03 or 0.000e+00
        "GB/s": lambda v: f"{v:,.1f} GB/s",
    }
    return formats.get(unit or "", lambda v: f"{v:g}")(value)


def key_pairs(
    experiment: str, key: Mapping[str, Any], paths: Sequence[tuple[str, ...]]
) -> tuple[tuple[Metric, ...], ...]:
    """Pairs of key figures by their paths in `key` ("peak_bytes.sequence"); a path whose figure
    the run has not (missing or None) is left out, and a pair with neither."""
    found = []
    for pair in paths:
        found.append(
            tuple(
                figure(experiment, path, value_text(experiment, path, value))
                if (value := lookup(key, path)) is not None
                else None
                for path in pair
            )
        )
    return pairs(*found)


def lookup(key: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted path of key figures; the last part may hold dots (a mode name)."""
    value: Any = key
    rest = path
    while rest:
        if isinstance(value, Mapping) and rest in value:
            return value[rest]
        head, _, rest = rest.partition(".")
        if not isinstance(value, Mapping) or head not in value:
            return None
        value = value[head]
    return value


def merge_per_mode(texts: Sequence[str]) -> tuple[str, ...]:
    """Lines that say the same after their "mode: " prefix as one line naming every mode
    ("dynamic=False, bucketed: first recompile at call 2, …"), in their first one's place."""
    groups: dict[str, list[str]] = {}
    for text in texts:
        head, sep, rest = text.partition(": ")
        if sep and " " not in head.strip() and len(head) <= 40:
            groups.setdefault(rest, []).append(head)
        else:
            groups.setdefault(text, [])
    return tuple(f"{', '.join(heads)}: {rest}" if heads else rest for rest, heads in groups.items())


def summary_of(
    experiment: str,
    key: Mapping[str, Any] | None,
    paths: Sequence[tuple[str, ...]],
    chart_titles: Sequence[str],
    chart_starts: Sequence[str],
    prose: Sequence[str],
    warnings: Sequence[str] = (),
) -> Summary:
    """A Summary from key figures (pairs of paths), the first chart whose title starts with one
    of `chart_starts` (in their order; else the first chart), the prose's first sentences merged
    per mode within the word budget, and the warnings merged per mode."""
    chart = next((t for s in chart_starts for t in chart_titles if t.startswith(s)), None)
    return Summary(
        pairs=key_pairs(experiment, key or {}, paths),
        chart=chart or next(iter(chart_titles), None),
        prose=fit([first_sentence(t) for t in merge_per_mode(prose)]),
        warnings=merge_per_mode(warnings),
    )
