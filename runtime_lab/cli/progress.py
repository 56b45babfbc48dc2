"""The CLI's wait for a job: its stage on stderr as it changes, the headline when timing ends."""

from __future__ import annotations

import sys
import time

from runtime_lab.view.text import terminal


def wait_with_progress(jobs, job_id: str):
    last, early = "", False
    while True:
        job = jobs.wait(job_id, timeout_s=1.0)
        # a short job can end between two polls: its timing-phase headline is still printed
        # (from the partial the job kept), so every run's output has the same parts
        if job.partial is not None and not early and job.state in ("running", "done"):
            early = True
            early_headline(job)
        line = f"[{job.state}] {terminal(job.stage)}".rstrip()
        if line != last and not job.finished:
            print(line, file=sys.stderr, flush=True)
            last = line
        if job.finished:
            return job
        time.sleep(0.2)


def early_report(job):
    """The report of a job's figures so far (its partial result), those still to come marked
    pending: what the page draws early, and what early_headline prints."""
    from dataclasses import replace

    from runtime_lab import registry
    from runtime_lab.report import pending

    return pending(registry.build_report(replace(job, state="done", result=job.partial).as_run()))


def doubt_line(report) -> str | None:
    """The headline's trust verdict where it doubts, indented under it: the same line in the
    early headline and the whole report (the page's amber box)."""
    if report.verdict is not None and report.verdict.doubt:
        return f"  {terminal(report.verdict.doubt)}"
    return None


def early_headline(job) -> None:
    """The timing phase's figures, on stderr, as soon as they are in: the profiler and trace
    evidence follow, then the whole report on stdout (the partial result is never stored)."""
    report = early_report(job)
    print(f"timing done, evidence follows: {terminal(report.headline)}", file=sys.stderr)
    if line := doubt_line(report):
        print(line, file=sys.stderr)
    for metric in report.metrics:
        print(f"  {terminal(metric.label)}: {terminal(metric.value)}", file=sys.stderr, flush=True)
