"""Whether a run's process could have inflated its figures: probe vs baseline, worker, CPU."""

from __future__ import annotations

import dataclasses
from typing import Any

from runtime_lab.record import Run
from runtime_lab.results import CONTENDED_OTHERS_PCT

# report.CONTENDED: a verdict that doubts a contended host (not imported: the worker imports
# this module, and runtime_lab.report brings altair and pandas)
CONTENDED = "contended"

# A job-start probe this much above the worker's own start-up probe means something earlier in
# the process (a tool, a leak, a thread left running) made host-side work slower
PROBE_THRESHOLD_PCT = 20.0
PROBE_LABELS = {"dispatch_us": "dispatch", "launch_us": "launch", "graph_replay_us": "graph replay"}


def _number(value: Any) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return float(value) if ok else None


def compare(job: dict[str, Any] | None, baseline: dict[str, Any] | None) -> dict[str, Any]:
    """The run's `process_probe`: both probes, job/baseline ratios, flagged above the threshold."""
    ratios, inflated = {}, []
    for key, label in PROBE_LABELS.items():
        now, base = _number((job or {}).get(key)), _number((baseline or {}).get(key))
        if now is None or base is None or base <= 0:
            continue
        ratio = now / base
        ratios[key] = round(ratio, 3)
        if ratio > 1 + PROBE_THRESHOLD_PCT / 100:
            inflated.append(
                f"{label} {now:.1f} µs vs {base:.1f} µs at worker start ({(ratio - 1) * 100:+.0f} %)"
            )
    reason = "process state inflated host-side times: " + "; ".join(inflated) if inflated else None
    return {
        "job": job,
        "baseline": baseline,
        "ratios": ratios,
        "threshold_pct": PROBE_THRESHOLD_PCT,
        "flagged": bool(inflated),
        "reason": reason,
    }


def contended_timings(result: Any) -> list[tuple[str, float]]:
    """(label, others %) of every stored Timing in a result whose phase was contended."""
    found: list[tuple[str, float]] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if "clock" in value and "host_ms" in value:  # a Timing, wherever a result keeps it
                pct = _number(value.get("cpu_others_pct"))
                if pct is not None and pct > CONTENDED_OTHERS_PCT:
                    found.append((str(value.get("label")), pct))
                return
            for inner in value.values():
                walk(inner)
        elif isinstance(value, list | tuple):
            for inner in value:
                walk(inner)

    walk(result)
    return found


def warnings(run: Run) -> list[str]:
    """States of the process that a reader of any experiment's figures must not miss."""
    found = []
    probe = run.process_probe or {}
    if probe.get("flagged"):
        found.append(str(probe.get("reason")))
    found += contention_warning(run)
    alongside = (run.worker or {}).get("alongside") or []
    if alongside:
        others = "; ".join(f"{a.get('lane')}: {a.get('label')}" for a in alongside[:3])
        more = f" and {len(alongside) - 3} more" if len(alongside) > 3 else ""
        found.append(
            f"ran alongside {len(alongside)} job(s) on other workers of this host ({others}"
            f"{more}): they shared its cores, so host-side figures may be inflated; "
            "device-side (CUDA-event) figures are the ones to compare, or run it alone"
        )
    return found


def notes(run: Run) -> list[str]:
    """What 'this process' meant for the run: a replaced worker, a job that disturbed its own."""
    worker = run.worker or {}
    found = []
    if worker.get("fresh_after_disturbed"):
        tools = ", ".join(worker.get("previous_disturbed_by") or ()) or "a tool"
        found.append(
            f"Ran in a fresh worker process (pid {worker.get('pid')}): the previous one was "
            f"replaced after a job turned on {tools}. Compiled code kept across "
            "jobs (fusion's compiled wrappers) went with the old process: this job compiled its "
            "own."
        )
    if worker.get("disturbed_by"):
        found.append(
            f"This job turned on {', '.join(worker['disturbed_by'])}; the worker was replaced "
            "after it, so later jobs time in a clean process."
        )
    return found


def contention_warning(run: Run) -> list[str]:
    """Other processes' share of the host's cores while the run was timed, where flagged."""
    contended = contended_timings(run.result)
    if not contended:
        return []
    labels = ", ".join(dict.fromkeys(label for label, _ in contended))
    worst = max(pct for _, pct in contended)
    return [
        f"other processes used up to {worst:.0f} % of the host's cores during "
        f"{len(contended)} timed phase(s) ({labels}): host-side figures may be inflated "
        f"(flagged above {CONTENDED_OTHERS_PCT:.0f} %)"
    ]


def annotate(report: Any, run: Run) -> Any:
    """A Report with the process warnings and notes added (unchanged when there are none)."""
    extra_warnings, extra_notes = warnings(run), notes(run)
    if not extra_warnings and not extra_notes:
        return report
    summary = report.summary
    # the process's state is read on one screen too, unless the verdict's doubt says it
    said = report.verdict.states if report.verdict is not None else frozenset()
    shown = [w for w in extra_warnings if not (CONTENDED in said and w in contention_warning(run))]
    if summary is not None and shown:
        summary = dataclasses.replace(summary, warnings=tuple(summary.warnings) + tuple(shown))
    return dataclasses.replace(
        report,
        warnings=tuple(report.warnings) + tuple(extra_warnings),
        notes=tuple(report.notes) + tuple(extra_notes),
        summary=summary,
    )
