"""Which modes gave a wrong answer or none, in the words the headline, verdict and notes use."""

from __future__ import annotations

from runtime_lab.fusion.result import FusionResult, ModeResult
from runtime_lab.workloads.tolerance import formula_text


def _number(value: float) -> str:
    return f"{value:.3g}"


def wrong(result: FusionResult) -> list[ModeResult]:
    """Modes timed although their answer is outside tolerance (issue 41: timed, flagged)."""
    return [m for m in result.modes if m.ran and m.tolerance_passed is False]


def untimed(result: FusionResult) -> list[ModeResult]:
    """Modes that could run and have no time: an exception, NaN or infinite output; in runs
    before issue 41, an answer outside tolerance against eager."""
    return [m for m in result.modes if not m.ran and (m.not_timed or m.tolerance_passed is False)]


def _wrong_sentence(mode: ModeResult) -> str:
    found = f"{mode.mode} is outside tolerance against float64"
    if mode.allowed_err_fp64 is not None and mode.max_abs_diff_fp64 is not None:
        found += (
            f" (max err {_number(mode.max_abs_diff_fp64)} > allowed "
            f"{_number(mode.allowed_err_fp64)})"
        )
    return f"{found}: its speed is of a wrong answer"


def _untimed_sentence(mode: ModeResult) -> str:
    if mode.not_timed:
        return f"{mode.mode} not timed: {mode.not_timed}"
    return f"{mode.mode} outside tolerance against eager: not timed"  # a run before issue 41


def headline_sentences(result: FusionResult) -> list[str]:
    """One clause per mode whose figure is of a wrong answer or missing, for the headline."""
    return [*map(_wrong_sentence, wrong(result)), *map(_untimed_sentence, untimed(result))]


def verdict_lines(result: FusionResult) -> list[str]:
    """What the headline's verdict doubts for correctness: short, the headline has the figures."""
    lines = []
    timed = [m.mode for m in wrong(result)]
    if timed:
        their = "its" if len(timed) == 1 else "their"
        lines.append(
            f"Wrong answer: {', '.join(timed)} outside tolerance against float64; "
            f"do not quote {their} speed."
        )
    older = [m.mode for m in untimed(result) if not m.not_timed]
    if older:
        lines.append(f"{', '.join(older)} outside tolerance against eager: not timed.")
    missing = [m.mode for m in untimed(result) if m.not_timed]
    if missing:
        lines.append(f"Not timed: {', '.join(missing)}.")
    return lines


def note(result: FusionResult, mode: ModeResult) -> str | None:
    """How a mode's answer was judged: the rule, its error and allowance, the bound's formula;
    None in runs before issue 41."""
    if mode.tolerance_rule is None or mode.max_abs_diff_fp64 is None:
        return None
    verdict = "passed" if mode.tolerance_passed else "FAILED"
    text = (
        f"{mode.mode} {verdict} '{mode.tolerance_rule}': max |output − float64| "
        f"{_number(mode.max_abs_diff_fp64)} against {_number(mode.allowed_err_fp64)} allowed"
    )
    if mode.tolerance_rule == "float64 bound":
        text += f" ({formula_text(result.dtype, result.reduction_lengths)})"
    else:
        text += " (eager's own error + one epsilon of the largest output)"
    return text + "."


def notes(result: FusionResult) -> list[str]:
    """The judgement of each mode outside tolerance; the rest pass and the modes table says so."""
    return [n for m in result.modes if m.tolerance_passed is False and (n := note(result, m))]
