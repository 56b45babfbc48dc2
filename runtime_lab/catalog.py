"""The experiments the lab knows, described without importing torch (pages and CLI read this)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class OptionSpec:
    """One experiment-specific field: a choice among strings, a bool, or a bounded int."""

    default: object
    help: str
    choices: tuple[str, ...] = ()
    kind: str = "choice"  # "choice" | "bool" | "int"
    low: int = 0
    high: int = 0


@dataclass(frozen=True)
class ExperimentInfo:
    name: str
    title: str
    summary: str
    module: str  # imported only inside the worker: it imports torch
    default_shape: str = "4096x4096"
    options: dict[str, OptionSpec] = field(default_factory=dict)
    hidden: bool = False  # diagnostics: in the CLI, not on the pages


EXPERIMENTS: dict[str, ExperimentInfo] = {
    "streams": ExperimentInfo(
        name="streams",
        title="Streams & events",
        summary=(
            "Side-stream matmul ordered by CUDA events (record / wait_event), checked against a "
            "default-stream reference, then timed."
        ),
        module="runtime_lab.experiments.streams",
        default_shape="4096x4096",
    ),
    "selftest": ExperimentInfo(
        name="selftest",
        title="Worker self-test",
        summary="Diagnostics of the worker: a job that succeeds, sleeps, raises, crashes or hangs.",
        module="runtime_lab.experiments.selftest",
        default_shape="8",
        options={
            "behaviour": OptionSpec(
                default="ok",
                help="what the job does",
                choices=("ok", "sleep", "raise", "crash", "hang", "oom"),
            ),
            "seconds": OptionSpec(
                default=1, help="how long 'sleep' runs", kind="int", low=0, high=3600
            ),
        },
        hidden=True,
    ),
}


def visible() -> list[ExperimentInfo]:
    """Experiments shown on pages (diagnostics stay CLI-only)."""
    return [info for info in EXPERIMENTS.values() if not info.hidden]
