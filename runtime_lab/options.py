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
    kind: str = "choice"
    low: int = 0
    high: int = 0


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
