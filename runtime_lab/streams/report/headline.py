"""Streams' headline in plain words: did event ordering match the reference, what the mistakes did."""

from __future__ import annotations

import math

import numpy as np

from runtime_lab.glossary import registry as glossary
from runtime_lab.report import CONTENDED, Verdict
from runtime_lab.results import stats
from runtime_lab.streams.info import SEED_OP
from runtime_lab.streams.report.figures import StreamsFigures, primary
from runtime_lab.streams.result import StreamsResult, VariantResult, op_timing
from runtime_lab.view.fmt import fmt_ms

# how the orderings that guarantee the result order the side stream, in the headline's words
ORDERED_BY = {
    "correct": "events",
    "wait-stream": "wait_stream",
    "synchronize": "synchronize()",
    "serial": "running on the default stream alone",
    "early-free-record-stream": "events, its temporary kept by record_stream",
    "early-free-event": "events, its temporary freed after the wait",
}


def error_text(value: float) -> str:
    """An error figure as people read it: 0 as "0", three significant digits, never 1e-05."""
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else str(value)
    if abs(value) >= 999.5:
        return f"{value:,.0f}"
    return np.format_float_positional(value, precision=3, fractional=False, trim="-")


def error_label() -> str:
    """The error figure's one name (the glossary's), wherever the report quotes it."""
    return glossary.label("streams", "max_abs_diff")


def _error(value: float) -> str:
    return f"{error_label()} {error_text(value)}"


def _op(result: StreamsResult) -> str:
    return result.workload or SEED_OP  # runs from before the catalog ran the seed's matmul


def headline(result: StreamsResult, fig: StreamsFigures) -> str:
    """What the run answers: the first ordering against the reference, then the mistakes."""
    if not result.streams_supported:
        return _cpu(result)
    first = primary(result)
    if first is None:  # the check failed before any ordering ran, or a run without them
        return _check_only(result)
    return _first(result, first, fig.worst_abs_diff[0]) + _others(result, first)


def _cpu(result: StreamsResult) -> str:
    """Without streams the one check ran: the op twice on the host, the results compared."""
    # "matmul", not "x @ y": a lone @ is set as code on the page
    ran = f"No CUDA streams on this CPU: the {_op(result)} ran on the host twice and the results"
    need = "the orderings, their wrong results and overlap need CUDA"
    if not result.tolerance_passed:
        return (
            f"{ran} differed ({_error(result.max_abs_diff)}, {_tolerance(result)}): not timed; "
            f"{need}"
        )
    timed = op_timing(result)
    took = f", {fmt_ms(stats(timed.primary_ms).median)} per call" if timed else ""
    how = "exactly" if result.max_abs_diff == 0 else "within tolerance"
    return f"{ran} matched {how} ({_error(result.max_abs_diff)}){took}; {need}"


def _tolerance(result: StreamsResult) -> str:
    return f"above rtol {result.rtol:g}, atol {result.atol:g}"


def _check_only(result: StreamsResult) -> str:
    op = f"The side-stream {_op(result)} ordered by events"
    if not result.tolerance_passed:
        return (
            f"{op} did not match the default-stream reference ({_error(result.max_abs_diff)}, "
            f"{_tolerance(result)}): not timed, no ordering run"
        )
    return f"{op} matched the default-stream reference ({_error(result.max_abs_diff)})"


def _first(result: StreamsResult, first: VariantResult, worst: float) -> str:
    name = first.variant
    how = ORDERED_BY.get(name)
    side = f"The side-stream {_op(result)}"
    if not first.expected_correct:
        return (
            f"{side} under {name}, an ordering mistake, gave wrong results in "
            f"{first.mismatches}/{first.trials} trials ({_error(worst)})"
        )
    ordered = f"{side} ordered by {how} ({name})" if how else f"{side} under {name}"
    if first.mismatches:
        return (
            f"{ordered} gave wrong results in {first.mismatches}/{first.trials} trials "
            f"({_error(worst)}): an ordering that guarantees the result never should"
        )
    exactly = " exactly" if worst == 0 else ""
    return (
        f"{ordered} matched the default-stream reference{exactly} in all {first.trials} trials "
        f"({_error(worst)})"
    )


def _others(result: StreamsResult, first: VariantResult) -> str:
    """' · the 3 ordering mistakes gave wrong results in 20/20 (missing-producer-wait), …',
    and any ordered variant that went wrong (a bug) or, after a mistake named first, none."""
    rest = [v for v in result.variants if v is not first]
    mistakes = [v for v in rest if not v.expected_correct]
    ordered = [v for v in rest if v.expected_correct]
    other = "other " if not first.expected_correct else ""
    found = []
    if len(mistakes) == 1:
        v = mistakes[0]
        found.append(
            f"the {other}ordering mistake, {v.variant}, gave wrong results in "
            f"{v.mismatches}/{v.trials} trials"
        )
    elif mistakes:
        each = _listed([f"{v.mismatches}/{v.trials} ({v.variant})" for v in mistakes])
        found.append(
            f"the {len(mistakes)} {other}ordering mistakes gave wrong results in {each} trials"
        )
    elif first.expected_correct:
        found.append("no ordering mistake was run")
    wrong = [v for v in ordered if v.mismatches]
    if wrong:
        each = _listed([f"{v.variant} {v.mismatches}/{v.trials}" for v in wrong])
        found.append(f"wrong results where the ordering guarantees the result: {each}")
    elif ordered and not first.expected_correct:
        plural = "s" if len(ordered) > 1 else ""
        found.append(f"the {len(ordered)} ordered variant{plural}: no wrong result")
    return "".join(f" · {part}" for part in found)


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def verdict(result: StreamsResult) -> Verdict | None:
    """A CPU headline quotes the op's host time: doubted where its samples were noisy or the
    host's cores were busy with other work; a GPU headline quotes no time (None)."""
    timed = op_timing(result)
    if result.streams_supported or timed is None or not result.tolerance_passed:
        return None
    s = stats(timed.primary_ms)
    doubts, states = [], set()
    if s.noisy:
        doubts.append(f"noisy (IQR/median {100 * s.iqr / s.median:.0f} %)")
    if timed.contended:
        doubts.append(
            f"host contended (others took up to {timed.cpu_others_pct:.0f} % of the cores)"
        )
        states.add(CONTENDED)
    if not doubts:
        return Verdict(True)
    return Verdict(
        False,
        f"Doubt: {'; '.join(doubts)} while the {_op(result)} was timed: its {fmt_ms(s.median)} "
        "per call is uncertain. The match itself is not in doubt.",
        states=frozenset(states),
    )
