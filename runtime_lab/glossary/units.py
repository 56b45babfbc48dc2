"""Figures in their units as people read them: one time unit for values read together, bytes binary."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from runtime_lab.glossary.figure import TIMES

_MS = {"ms": 1.0, "us": 1e-3, "s": 1e3}  # one of each time unit, in ms
_TIME_STEPS = (("s", 1e3), ("ms", 1.0), ("µs", 1e-3), ("ns", 1e-6))  # shown unit, its size in ms
_BYTE_STEPS = (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10), ("B", 1))
_SHOWN = {"GB/s": " GB/s", "TFLOP/s": " TFLOP/s", "FLOP/B": " FLOP/B", "MHz": " MHz", "%": " %"}
_SHOWN["x"] = "×"


@dataclass(frozen=True)
class Scale:
    """How values of one unit are written: `shown` after the number, `size` one shown unit in
    the figure's own unit (1 µs is 1e-3 of a figure in ms)."""

    shown: str
    size: float = 1.0


def scale(unit: str | None, values: Iterable[float | None]) -> Scale:
    """The one scale for values read together (a compare row, a table column, an axis): the
    largest value's, so 0.9 ms and 3.2 ms read 0.9 ms and 3.2 ms, not 900 µs and 3.2 ms."""
    biggest = max((abs(v) for v in values if v is not None), default=0.0)
    if unit in TIMES:
        if not biggest:  # nothing to size by: the figure's own unit
            return Scale(" µs" if unit == "us" else f" {unit}")
        ms = biggest * _MS[unit]
        shown, size = next(((u, s) for u, s in _TIME_STEPS if ms >= s), _TIME_STEPS[-1])
        return Scale(f" {shown}", size / _MS[unit])
    if unit == "bytes":
        shown, size = next(((u, s) for u, s in _BYTE_STEPS if biggest >= s), _BYTE_STEPS[-1])
        return Scale(f" {shown}", size)
    return Scale(_SHOWN.get(unit or "", ""))


def number(value: float) -> str:
    """Three significant digits, whole numbers from 1,000 up (never 1.23e+03)."""
    if value == 0:
        return "0"
    if abs(value) >= 999.5:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def show(unit: str | None, value: float | None, within: Scale | None = None) -> str:
    """A figure in its unit ("2.95 ms", "1.5 GiB", "85.2 %", "2.1×"); `within`: the scale of
    the values it is read with (scale()), else its own."""
    if value is None:
        return "—"
    if unit == "count" and float(value).is_integer():
        return f"{value:,.0f}"
    used = within or scale(unit, [value])
    return f"{number(value / used.size)}{used.shown}"
