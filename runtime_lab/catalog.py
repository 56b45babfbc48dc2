"""The experiments the lab knows, described without importing torch (pages and CLI read this)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class OptionSpec:
    """One experiment-specific field: a choice among strings, a bool, or a bounded int."""

    default: object
    help: str
    choices: tuple[str, ...] = ()
    kind: str = "choice"  # "choice" | "multi" (comma list of choices) | "bool" | "int" | "sizes"
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


FUSION_MODES = (
    "eager",
    "inductor",
    "inductor-reduce-overhead",
    "inductor-max-autotune-no-cudagraphs",
    "dynamo-eager",
    "cuda-graph",
)

EXPERIMENTS: dict[str, ExperimentInfo] = {
    "fusion": ExperimentInfo(
        name="fusion",
        title="Fusion & compile",
        summary=(
            "silu(x + y) * (x - y), eager vs torch.compile: kernels from the profiler, tolerance, "
            "cold and warm compile latency, steady-state time, bytes moved against the copy ceiling."
        ),
        module="runtime_lab.experiments.fusion",
        default_shape="4096x4096",
        options={
            "modes": OptionSpec(
                default="eager,inductor,inductor-reduce-overhead,dynamo-eager,cuda-graph",
                help="variants compared side by side",
                choices=FUSION_MODES,
                kind="multi",
            ),
            "fullgraph": OptionSpec(default=True, help="torch.compile(fullgraph=...)", kind="bool"),
            "dynamic": OptionSpec(
                default="auto",
                help="torch.compile(dynamic=...): auto is None (automatic dynamic)",
                choices=("auto", "false", "true"),
            ),
            "compile_latency": OptionSpec(
                default=True,
                help="measure cold / warm-cache / warm-process compile of the inductor mode",
                kind="bool",
            ),
            "fresh_process": OptionSpec(
                default=False,
                help="also compile cold in a fresh process (import + init + compile, ~20 s)",
                kind="bool",
            ),
            "sweep": OptionSpec(
                default="",
                help="square sizes to sweep, e.g. 256,1024,4096,16384 (empty: no sweep)",
                kind="sizes",
                low=1,
                high=32768,
            ),
        },
    ),
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
