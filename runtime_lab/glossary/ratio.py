"""A ratio between two values of one figure in words: how many times, and which way is better."""

from __future__ import annotations

import math

from runtime_lab.glossary.figure import TIMES


def _words(unit: str | None, better: str) -> tuple[str, str, bool]:
    """(word for more, word for less, whether the words already say which is better)."""
    if unit in TIMES:
        return ("slower", "faster", True) if better == "lower" else ("longer", "shorter", False)
    if unit == "bytes":
        return "more bytes", "fewer bytes", False
    if unit == "count":
        return "more", "fewer", False
    return "higher", "lower", False


def words(ratio: float | None, unit: str | None, better: str = "neither") -> str:
    """value ÷ baseline in words: "2.1× faster" (a time), "1.3× more bytes (worse)", "1×"."""
    if ratio is None or math.isnan(ratio):
        return "—"
    if ratio <= 0 or math.isinf(ratio):
        return f"{ratio:.3g}×"
    factor = ratio if ratio >= 1 else 1 / ratio
    shown = f"{factor:.3g}"
    if shown == "1":
        return "1×"
    more, less, judged = _words(unit, better)
    text = f"{shown}× {more if ratio > 1 else less}"
    if not judged and better in ("higher", "lower"):
        text += " (better)" if (ratio > 1) == (better == "higher") else " (worse)"
    return text


def span(values: list[float] | tuple[float, ...]) -> str:
    """The range of some ratios as written: "0.75×–0.9×", or one figure when both ends read the
    same at two significant figures ("1.1×", not "1.1×–1.1×")."""
    low, high = f"{min(values):.2g}×", f"{max(values):.2g}×"
    return low if low == high else f"{low}–{high}"
