"""Input echoed back in a message: quoted on one line, cut to a readable length, as it was given."""

from __future__ import annotations

import re

LIMIT = 40  # characters of a value a message repeats; the rest is said as a length
# a number as people type it (ASCII digits only): echoed unquoted, exactly as given
NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def quote(value: object, limit: int = LIMIT) -> str:
    """`value` as text in quotes (repr: control characters, newlines and lone surrogates are
    escaped, so it stays one line), cut after `limit` characters with the full length said."""
    text = str(value)
    return repr(text) if len(text) <= limit else f"{text[:limit]!r}… ({len(text):,} characters)"


def cut(text: str, limit: int = LIMIT) -> str:
    """`text` unquoted (a field's name, say), cut after `limit` characters with its length said."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def given(value: object, limit: int = LIMIT) -> str:
    """A value as the user gave it: a typed number as typed (`1e3`, `+05`, never a float's
    rendering of it), anything else quoted and cut (quote)."""
    text = value if isinstance(value, str) else repr(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return text  # a number that came as a number (JSON, a widget): its own spelling
    stripped = text.strip()
    if NUMBER.fullmatch(stripped) and len(stripped) <= limit:
        return stripped
    return quote(text, limit)
