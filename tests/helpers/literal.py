"""Reading markdown as Streamlit would show it: what text it renders, and whether it holds any
construct (link, image, heading, list, HTML, LaTeX, directive, emphasis) instead of text.

A small reader of the CommonMark/GFM rules that matter here (escapes, code spans, line starts,
GFM's bare-link and Streamlit's :code: replacements), independent of runtime_lab.view.text."""

from __future__ import annotations

import re
import string

PUNCTUATION = frozenset(string.punctuation)
BREAK = "  \n"  # a hard line break, as markdown(lines=True) writes one
NBSP = "\u00a0"
# raw, any of these starts or ends a construct
SPECIAL = frozenset("\\`*~[]{}<>$|!")
LINKED = re.compile(r"://|www\.|@|:[a-z_+-][\w+-]*:", re.IGNORECASE)
BLOCK = re.compile(r"^(#{1,6}(\s|$)|[-+*=](\s|$)|[-=_*]+\s*$|\d{1,9}[.)](\s|$)|>)")


def _pieces(line: str) -> list[tuple[str, bool]]:
    """(text, literal) pieces of one line: escaped characters and code spans are literal."""
    pieces, i = [], 0
    while i < len(line):
        char = line[i]
        if char == "\\" and i + 1 < len(line) and line[i + 1] in PUNCTUATION:
            pieces.append((line[i + 1], True))
            i += 2
        elif char == "`":
            fence = re.match(r"`+", line[i:]).group()
            close = re.search(rf"(?<!`){fence}(?!`)", line[i + len(fence) :])
            if close is None:
                pieces.append((fence, False))  # an unclosed run of backticks is raw
                i += len(fence)
                continue
            body = line[i + len(fence) : i + len(fence) + close.start()]
            if body.startswith(" ") and body.endswith(" ") and body.strip():
                body = body[1:-1]
            pieces.append((body, True))
            i += len(fence) + close.end()
        else:
            pieces.append((char, False))
            i += 1
    return pieces


def lines_of(markdown: str) -> list[str]:
    return markdown.split(BREAK)


def rendered(markdown: str) -> str:
    """The text a reader sees, lines joined by newlines (indentation as spaces)."""
    out = []
    for line in lines_of(markdown):
        body = line.lstrip(NBSP)
        out.append(" " * (len(line) - len(body)) + "".join(t for t, _ in _pieces(body)))
    return "\n".join(out)


def problems(markdown: str) -> list[str]:
    """Each place the markdown would be read as something other than its text."""
    found = []
    for line in lines_of(markdown):
        body = line.lstrip(NBSP)
        pieces = _pieces(body)
        raw = "".join(t if not literal else "\0" * len(t) for t, literal in pieces)
        found += [f"raw {c!r} in {line!r}" for c in sorted(set(raw) & SPECIAL)]
        found += [f"raw {m.group()!r} in {line!r}" for m in LINKED.finditer(raw)]
        found += [
            f"raw emphasis _ in {line!r}" for _ in re.finditer(r"(?<![^\W_])_|_(?![^\W_])", raw)
        ]
        if re.search(r":[^\W\d_]", raw):
            found.append(f"a directive (:name) in {line!r}")
        if BLOCK.match(raw):
            found.append(f"a block marker at the start of {line!r}")
        if re.match(r"( {4}|\t)", line):
            found.append(f"an indented code block: {line!r}")
    return found


def interpreted(markdown: str) -> list[str]:
    """What would make a link, an image, HTML, a formula or a heading: raw `](`, `<`, `>`,
    `$`, a bare URL or a heading marker (the app's own markdown uses none of them)."""
    found = []
    for line in lines_of(markdown):
        raw = "".join(t if not lit else "\0" * len(t) for t, lit in _pieces(line.lstrip(NBSP)))
        found += [f"raw {c!r} in {line!r}" for c in sorted(set(raw) & set("<>$"))]
        found += [f"raw {m.group()!r} in {line!r}" for m in re.finditer(r"\]\(|://|www\.", raw)]
        if re.match(r"#{1,6}(\s|$)", raw):
            found.append(f"a heading: {line!r}")
    return found
