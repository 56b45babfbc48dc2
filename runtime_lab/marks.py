"""Input axes to mark dynamic, as text: "x:0,y:0" ↔ (("x", 0), ("y", 0)); no torch."""

from __future__ import annotations

import re

_PAIR = re.compile(r"([A-Za-z_][A-Za-z0-9_]{0,63}):([0-9])")
MAX_AXIS = 3  # shapes have 1 to 4 dims
ALLOWED = "input:axis pairs, comma-joined, e.g. x:0 or x:0,y:0 (axis 0 to 3); empty: none"

Marks = tuple[tuple[str, int], ...]


def parse(text: str) -> Marks:
    """'x:0, y:0' → (('x', 0), ('y', 0)), repeats dropped, order kept; ValueError says what is
    allowed."""
    found: list[tuple[str, int]] = []
    for part in (p.strip() for p in str(text).split(",")):
        if not part:
            continue
        pair = _PAIR.fullmatch(part)
        if pair is None or int(pair[2]) > MAX_AXIS:
            raise ValueError(f"{part[:40]!r} is not an input:axis pair; allowed: {ALLOWED}")
        found.append((pair[1], int(pair[2])))
    return tuple(dict.fromkeys(found))


def text(marks: Marks) -> str:
    """The canonical text: 'x:0,y:0'."""
    return ",".join(f"{name}:{axis}" for name, axis in marks)


def merged(*texts: str) -> str:
    """Several mark lists as one, in order, each pair once."""
    return text(tuple(dict.fromkeys(p for t in texts for p in parse(t))))
