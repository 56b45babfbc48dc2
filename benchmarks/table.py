"""Rows of figures as a plain-text table: one column per key, numbers to a readable precision."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

MAX_CELL = 80  # an error message is cut here in the table (the JSON keeps all of it)


def cell(value: Any) -> str:
    """A value as the table shows it: "-" for none, three decimals near 1, fewer when large,
    a dict as its keys each beside its value."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):  # a figure per mode: "eager 15 · inductor 1"
        return " · ".join(f"{key} {cell(v)}" for key, v in value.items())
    if isinstance(value, float):
        size = abs(value)
        if size >= 100:
            return f"{value:,.1f}"
        if size >= 1 or size == 0:
            return f"{value:.3f}"
        return f"{value:.4g}"
    text = str(value)
    return text if len(text) <= MAX_CELL else text[: MAX_CELL - 1] + "…"


def render(title: str, rows: Sequence[dict[str, Any]]) -> str:
    """The rows under a `== title` line; the columns are every key, in first-seen order."""
    columns: list[str] = []
    for row in rows:
        columns += [key for key in row if key not in columns]
    cells = [[cell(row.get(key)) for key in columns] for row in rows]
    widths = [max([len(key), *(len(line[i]) for line in cells)]) for i, key in enumerate(columns)]
    lines = [f"== {title}"]
    if not rows:
        return "\n".join([*lines, "  (no rows)"])
    lines.append("  " + "  ".join(key.ljust(w) for key, w in zip(columns, widths, strict=True)))
    for line in cells:
        # text left, numbers right: a column of figures lines up on its last digit
        padded = [
            text.rjust(w) if _numeric(text) else text.ljust(w)
            for text, w in zip(line, widths, strict=True)
        ]
        lines.append("  " + "  ".join(padded).rstrip())
    return "\n".join(lines)


def _numeric(text: str) -> bool:
    return text.replace(",", "").replace(".", "").replace("-", "").replace("e", "").isdigit()
