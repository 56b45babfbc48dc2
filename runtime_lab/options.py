"""How an experiment describes itself without importing torch: its options, title, icon, intro."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class OptionSpec:
    """One experiment-specific field: a choice among strings, a bool, or a bounded int."""

    default: object
    help: str
    choices: tuple[str, ...] = ()
    # "choice" | "multi" (comma list of choices) | "bool" | "int" | "sizes" | "shapes" (sequence)
    # | "workload" (a name from runtime_lab/workloads) | "params" (name=int pairs of that workload)
    # | "marks" (input:axis pairs to mark dynamic: runtime_lab/marks.py)
    kind: str = "choice"
    low: int = 0
    high: int = 0
    # why the option does nothing without CUDA ("" where it acts on the CPU too); for a choice
    # list, the choices that need CUDA and why (the others act on the CPU)
    needs_cuda: str = ""
    cuda_choices: tuple[str, ...] = ()
    workloads: tuple[str, ...] = ()  # the workloads it acts on (empty: every one)


def inactive(option: OptionSpec, gpu: bool, workload: str | None = None) -> str | None:
    """Why the option does nothing here (None where it acts): no GPU on this machine for a
    CUDA-only option, or a workload it does not act on. The form disables such a control with
    this reason."""
    if option.needs_cuda and not option.cuda_choices and not gpu:
        return f"needs CUDA, and this machine has no GPU: {option.needs_cuda}"
    if option.workloads and workload is not None and workload not in option.workloads:
        return f"acts on {', '.join(option.workloads)} only, not on {workload}"
    return None


def choices_here(option: OptionSpec, gpu: bool) -> tuple[str, ...]:
    """The choices that act on this machine: without a GPU, those that need no CUDA."""
    return (
        option.choices if gpu else tuple(c for c in option.choices if c not in option.cuda_choices)
    )


@dataclass(frozen=True)
class ExperimentInfo:
    """An experiment's catalog entry: the CLI, the navigation and its page all read it from here."""

    name: str
    title: str
    summary: str  # one line: the overview page and the CLI's help
    icon: str = ""
    intro: str = ""  # the page's markdown under its title
    cpu_note: str = ""  # shown on the page when the machine has no GPU
    default_shape: str = "4096x4096"
    options: dict[str, OptionSpec] = field(default_factory=dict)
    hidden: bool = False  # diagnostics: in the CLI, not on the pages
    # the page's first Run on a machine without a GPU: a smaller shape, fewer modes or calls
    # (keys "shape", "warmup", "repeat" or option names), so it ends within a minute on 2 cores
    cpu_defaults: dict[str, object] = field(default_factory=dict)
    cpu_defaults_why: str = ""  # one line: what the CPU defaults leave out, and why
    # measured seconds of the page's default Run, per device kind ("cpu", "cuda"), and where
    default_run_s: dict[str, float] = field(default_factory=dict)
    default_run_basis: str = ""
    # options renamed since runs were recorded: old name → new name (stored runs and links)
    renamed: dict[str, str] = field(default_factory=dict)
    # workloads whose shape this experiment reads its own way, not by the workload's dims:
    # name → what the shape means (the form's help); its shape default is default_shape
    own_shapes: dict[str, str] = field(default_factory=dict)

    def option_of(self, kind: str) -> str | None:
        """The name of its option of this kind ("workload", "shapes", …), if it has one."""
        return next((n for n, o in self.options.items() if o.kind == kind), None)


MEASURED_DEFAULTS = (
    "the default Run measured with empty compile caches and a warm worker, on a 2-core CPU "
    "and on an H200 (python -m benchmarks page-defaults, 2026-12-03)"
)


COMMON_DEFAULTS = {"warmup": 10, "repeat": 50}  # the spec's and the CLI's defaults too


def form_defaults(info: ExperimentInfo, gpu: bool) -> dict[str, object]:
    """The form's starting values: the experiment's defaults, or on CPU its cpu_defaults."""
    values = {"shape": info.default_shape, **COMMON_DEFAULTS}
    values |= {name: option.default for name, option in info.options.items()}
    return values if gpu else values | info.cpu_defaults
