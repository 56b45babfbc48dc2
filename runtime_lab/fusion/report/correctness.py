"""Which modes gave a wrong answer (output or gradient) or none, in the headline's, verdict's and notes' words."""

from __future__ import annotations

from runtime_lab.fusion.result import FusionResult, GradCheck, ModeResult
from runtime_lab.workloads.tolerance import formula_text


def _number(value: float) -> str:
    return f"{value:.3g}"


def wrong(result: FusionResult) -> list[ModeResult]:
    """Modes timed although their answer is outside tolerance (issue 41: timed, flagged)."""
    return [m for m in result.modes if m.ran and m.tolerance_passed is False]


def wrong_grads(result: FusionResult) -> list[ModeResult]:
    """Modes timed although a gradient is outside tolerance against float64 (issue 39)."""
    return [m for m in result.modes if m.ran and m.grad_tolerance_passed is False]


def failed_grads(mode: ModeResult) -> list[GradCheck]:
    """A mode's gradients outside tolerance; () in runs before gradients had the bound."""
    return [c for c in mode.grad_checks if c.tolerance_passed is False]


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


def _grad_sentence(mode: ModeResult) -> str:
    failed = failed_grads(mode)
    if not failed:  # a run before gradients had the bound: no figures to quote
        return f"{mode.mode}'s gradients are outside tolerance against float64: its speed is of a wrong answer"
    first = failed[0]
    names = ", ".join(c.name for c in failed)
    found = f"{mode.mode}'s gradient of {names} {'is' if len(failed) == 1 else 'are'} outside tolerance against float64"
    if first.problem:
        found += f" ({first.name}: {first.problem})"
    elif first.allowed_err_fp64 is not None and first.max_abs_diff_fp64 is not None:
        found += (
            f" ({first.name}: max err {_number(first.max_abs_diff_fp64)} > allowed "
            f"{_number(first.allowed_err_fp64)})"
        )
    return f"{found}: its speed is of a wrong answer"


def _untimed_sentence(mode: ModeResult) -> str:
    if mode.not_timed:
        return f"{mode.mode} not timed: {mode.not_timed}"
    return f"{mode.mode} outside tolerance against eager: not timed"  # a run before issue 41


def headline_sentences(result: FusionResult) -> list[str]:
    """One clause per mode whose figure is of a wrong answer or missing, for the headline."""
    return [
        *map(_wrong_sentence, wrong(result)),
        *map(_grad_sentence, wrong_grads(result)),
        *map(_untimed_sentence, untimed(result)),
    ]


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
    grads = [m.mode for m in wrong_grads(result)]
    if grads:
        their = "its" if len(grads) == 1 else "their"
        lines.append(
            f"Wrong gradient: {', '.join(grads)} outside tolerance against float64; "
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


def grad_note(result: FusionResult, mode: ModeResult, check: GradCheck) -> str:
    """How one gradient was judged: the rule, its error and allowance, the bound over its own
    reductions (docs/measurement.md, the gradients)."""
    verdict = "passed" if check.tolerance_passed else "FAILED"
    head = f"{mode.mode}'s gradient of {check.name} {verdict} '{check.tolerance_rule}'"
    if check.problem:
        return f"{head}: {check.problem}."
    text = (
        f"{head}: max |gradient − float64| {_number(check.max_abs_diff_fp64)} against "
        f"{_number(check.allowed_err_fp64)} allowed"
    )
    if check.tolerance_rule == "float64 bound":
        words = formula_text(result.dtype, check.reduction_lengths).replace("output", "gradient")
        text += f" ({words})"
    else:
        text += " (eager's own gradient error + one epsilon of the largest gradient)"
    return text + "."


def notes(result: FusionResult) -> list[str]:
    """The judgement of each mode, and each gradient, outside tolerance; the rest pass and
    the modes table says so."""
    found = [n for m in result.modes if m.tolerance_passed is False and (n := note(result, m))]
    found += [grad_note(result, m, c) for m in result.modes for c in failed_grads(m)]
    return found
