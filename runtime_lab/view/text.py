"""Stored text shown as text: markdown that renders it literally, terminal lines without controls."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

# Streamlit renders st.markdown, captions, alerts, metric labels and values, widget labels and
# tooltips as GitHub markdown with LaTeX ($), directives (:red[…]) and link literals. A run's
# strings (an error, a label, a GPU or host name, a note) come from its worker or a stranger's
# bundle, so every one is escaped to read as typed: never a link, image, heading or formula.
_LINE_BREAK = re.compile(r"\r\n|[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]")
# GFM links bare URLs, www. names and e-mail addresses, and Streamlit draws :emoji: and
# material-icon codes, *after* parsing (in text), so a backslash can't stop them: such a word
# (from its scheme on) is set as inline code, which is never linked or replaced
# (a scheme or an address may start only where a run of [\w+.-] starts, or at its first letter:
# tried at every character, the scan back and forth over one long run was quadratic in its length)
_LINKABLE = re.compile(
    r"(?<![\w+.-])(?:(?![a-z])[\w+.-])*(?P<url>[a-z][\w+.-]*://\S*)"
    r"|(?P<www>www\.\S*)|(?<![\w+.-])(?P<mail>[-.\w+]*@\S*)|(?P<emoji>:[a-z_+-][\w+-]*:)",
    re.I,
)
# markdown's backslash escapes: each character that starts or ends a construct wherever it
# stands, and an `_` unless between two letters or digits (max_entries: no emphasis there)
_SPECIAL = re.compile(r"[\\`*~\[\]{}<>$|!]|(?<![^\W_])_|_(?![^\W_])")
SHOWN_CHARS = 20_000  # of one stored or linked string on a page: the rest is said as a count
# what opens a block at a line's start: heading, list item, setext underline or rule
_LINE_START = re.compile(r"^(#{1,6}(?=\s|$)|[-+=](?=\s|$)|[-=]+[ \t]*$|\d{1,9}(?=[.)](?:\s|$)))")
_ENTITY = re.compile(r"&(?=#?\w+;)")  # &lt; &#60; would be decoded, not shown
_DIRECTIVE = re.compile(r":(?=[^\W\d_])")  # :red, :small (a letter after ":" names a directive)
_NBSP = "\u00a0"


def markdown(value: Any, *, lines: bool = False) -> str:
    """`value` as markdown that renders exactly its text (its first SHOWN_CHARS characters).
    One line (a label, a title, a headline) unless `lines`: then each line break is kept as a
    hard break. Indentation is kept as no-break spaces (else an indented line is code)."""
    parts = _LINE_BREAK.split(shown(str(value)))
    if not lines:
        return _indented(" ".join(parts))
    return "  \n".join(_indented(part) for part in parts)


def _indented(part: str) -> str:
    body = part.lstrip(" \t")
    indent = part[: len(part) - len(body)].replace("\t", "    ").replace(" ", _NBSP)
    return indent + _line(body)


def _line(text: str) -> str:
    """One line with no indentation, escaped."""
    out, last = [], 0
    for found in _LINKABLE.finditer(text):
        start = found.start(found.lastgroup)  # a URL's match holds the run before its scheme
        out += [_escaped(text[last:start]), _code(text[start : found.end()])]
        last = found.end()
    out.append(_escaped(text[last:]))
    joined = "".join(out)
    start = _LINE_START.match(joined)
    if start:  # a list number's "." or ")" is escaped, any other marker itself
        at = start.end() if start.group()[0].isdigit() else 0
        joined = f"{joined[:at]}\\{joined[at:]}"
    return joined


def _escaped(text: str) -> str:
    marked = _SPECIAL.sub(lambda found: "\\" + found.group(), text)
    return _DIRECTIVE.sub(r"\\:", _ENTITY.sub(r"\\&", marked))


def shown(text: str, limit: int = SHOWN_CHARS) -> str:
    """`text` cut after `limit` characters, saying how many more there were: a page never
    echoes a million-character error or link value whole."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]} … ({len(text) - limit:,} more characters not shown)"


def code(value: Any) -> str:
    """`value` as one line of inline code (a worker's name): its text exactly, never markdown."""
    return _code(" ".join(_LINE_BREAK.split(shown(str(value)))))


def _code(word: str) -> str:
    """A word as an inline code span: its text exactly, whatever backticks it holds."""
    longest = max((len(m) for m in re.findall(r"`+", word)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if word.startswith("`") or word.endswith("`") else ""
    return f"{fence}{pad}{word}{pad}{fence}"


# ---- the terminal ---------------------------------------------------------------------------
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# characters that reorder what follows them on screen (Trojan Source): shown, not obeyed
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def terminal(value: Any, *, lines: bool = False) -> str:
    """`value` as the CLI prints it: escape sequences (ESC …), carriage returns, other C0 and
    C1 controls, bidi overrides and lone surrogates as visible escapes (\\x1b, \\r, \\u202e),
    so stored text can't move the cursor, recolour the terminal or forge a line. A newline is
    escaped too unless `lines` (a report's multi-line note)."""
    return "".join(_terminal_char(c, lines) for c in str(value))


def _terminal_char(char: str, lines: bool) -> str:
    if char == "\n" and lines:
        return char
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if char in _BIDI or unicodedata.category(char) in ("Cc", "Cs", "Zl", "Zp"):
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    return char
