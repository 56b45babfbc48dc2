"""Numbers as people read them: the glossary's units (glossary/units.py), one way everywhere."""

from runtime_lab.glossary import units


def fmt_ms(value: float) -> str:
    """Milliseconds in the unit that keeps three significant digits ("861 µs", "2.5 ms")."""
    return units.show("ms", value)


def fmt_seconds(value: float) -> str:
    """Seconds the same way ("1.3 s", "34.8 ms")."""
    return units.show("s", value)


def fmt_bytes(value: int | float | None) -> str:
    """Bytes in binary units (B, KiB, MiB, GiB), three significant digits; "—" for none."""
    return units.show("bytes", value)


METRIC_CHARS = 14  # what a metric showed whole in a quarter of a 1400 px page ("0.38× vs 3.67×")
LABEL_CHARS = 26  # a metric's label shown whole there ("inductor steady-state time")
SEPARATORS = (" vs ", " → ", " · ")  # where a value too long for its metric is split


def metric_parts(value: str) -> tuple[str, str]:
    """A metric's value as (the figure, the rest): a detail in parentheses, or the second side
    of "A vs B" ("A → B", "A · B") when the whole would not fit, goes below the figure instead
    of being cut off."""
    figure, _, detail = value.partition(" (")
    if detail and figure:
        return figure, "(" + detail
    if len(value) > METRIC_CHARS:
        for separator in SEPARATORS:
            first, found, second = value.partition(separator)
            if found and first:
                return first, separator.strip() + " " + second
    return value, ""


def label_fits(label: str) -> bool:
    """Whether a metric's label shows whole in a quarter of the page (else it wraps above)."""
    return len(label) <= LABEL_CHARS
