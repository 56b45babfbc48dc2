"""Numbers as people read them: units chosen so a figure keeps three significant digits."""


def fmt_ms(value: float) -> str:
    """Milliseconds with a unit that keeps three significant digits readable."""
    if value < 1e-3:
        return f"{value * 1e6:.0f} ns"
    if value < 1:
        return f"{value * 1e3:.1f} µs"
    return f"{value:.3f} ms"
