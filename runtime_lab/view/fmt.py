"""Numbers as people read them: units chosen so a figure keeps three significant digits."""


def fmt_ms(value: float) -> str:
    """Milliseconds with a unit that keeps three significant digits readable."""
    if value < 1e-3:
        return f"{value * 1e6:.0f} ns"
    if value < 1:
        return f"{value * 1e3:.1f} µs"
    return f"{value:.3f} ms"


def fmt_bytes(value: int) -> str:
    """Bytes in binary units (B, KiB, MiB, GiB), three significant digits."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(value) >= size:
            scaled = value / size  # 1000 to 1023 of a unit: .3g would write 1e+03
            return f"{scaled:.3g} {unit}" if abs(scaled) < 999.5 else f"{scaled:.0f} {unit}"
    return f"{value} B"


METRIC_CHARS = 14  # what a metric showed whole in a quarter of a 1400 px page ("0.38× vs 3.67×")


def metric_parts(value: str) -> tuple[str, str]:
    """A metric's value as (the figure, the rest): a detail in parentheses, or the second side
    of "A vs B" when the whole would not fit, goes below the figure instead of being cut off."""
    figure, _, detail = value.partition(" (")
    if detail:
        return figure, "(" + detail
    first, vs, second = value.partition(" vs ")
    if vs and len(value) > METRIC_CHARS:
        return first, "vs " + second
    return value, ""
