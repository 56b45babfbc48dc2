"""CSAN's verdicts beside the lab's wrong results: one row per ordering, with where they differ."""

from __future__ import annotations

import pandas as pd

from runtime_lab.streams.result import CsanAccess, StreamsResult

MISSED_REUSE = (
    "CSAN passes the early free: it tracks each tensor's accesses per stream, but when the "
    "caching allocator hands a freed block to a new tensor, the new tensor's first write is not "
    "a conflicting access in its eyes. The lab's block-reuse check (the new tensor got the freed "
    "block while the side stream still read it) catches what the sanitizer misses."
)


def _side(a: CsanAccess) -> str:
    args = f" ({', '.join(a.aliases)})" if a.aliases else ""
    where = f" at {a.user_line}" if a.user_line else ""
    return f"{a.stream}: {a.access} by {a.operator}{args}{where}"


def _agreement(expected: bool, race: bool, wrong: int, reused: int, variant: str) -> str:
    if expected and not race:
        return "both pass"
    if expected:
        return "CSAN flags an ordered variant: a false positive, or a bug in the ordering"
    if race:
        return "both flag it" if wrong else "CSAN flags it; the lab's trials saw no wrong result"
    if "early-free" in variant:
        return f"CSAN misses it (allocator reuse); the lab saw the block reused {reused}×"
    return "CSAN misses it" + ("; the lab saw wrong results" if wrong else "")


def csan_frame(result: StreamsResult) -> pd.DataFrame:
    """One row per ordering CSAN ran: its verdict, the first conflict, the lab's own figures."""
    lab = {v.variant: v for v in result.variants}
    rows = []
    for c in result.csan:
        v = lab.get(c.variant)
        expected = v.expected_correct if v else c.verdict != "race"
        wrong, trials, reused = (v.mismatches, v.trials, v.reused_block) if v else (0, 0, 0)
        first = c.races[0] if c.races else None
        rows.append(
            {
                "ordering": c.variant,
                "guaranteed": "ordered" if expected else "broken",
                "lab: wrong / trials": f"{wrong}/{trials}" if v else "—",
                "lab: block reused": reused if v else None,
                "CSAN": c.error and f"error: {c.error}" or c.verdict,
                "tensor": first.tensor if first else "",
                "access CSAN could not order": _side(first.current) if first else "",
                "earlier access on another stream": _side(first.previous) if first else "",
                "agreement": _agreement(expected, c.verdict == "race", wrong, reused, c.variant)
                if not c.error
                else "",
            }
        )
    return pd.DataFrame(rows)


def csan_notes(result: StreamsResult) -> list[str]:
    notes = [f"CUDA sanitizer: {result.csan_note}."] if result.csan_note else []
    if any(c.variant == "early-free" and c.verdict == "clean" for c in result.csan):
        notes.append(MISSED_REUSE)
    return notes
