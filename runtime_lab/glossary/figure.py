"""One figure of the glossary: a key of an experiment's key figures, its words, unit and trust."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

# how a figure's value reads; the numeric ones get a ratio between runs, the rest do not
TIMES = ("ms", "us", "s")
NUMERIC_UNITS = (*TIMES, "bytes", "GB/s", "TFLOP/s", "FLOP/B", "MHz", "%", "count", "x", "number")
OTHER_UNITS = ("text", "flag", "list")  # a name, a yes/no, a list: shown, never a ratio
UNITS = NUMERIC_UNITS + OTHER_UNITS
BETTER = ("lower", "higher", "closer to 1", "neither")
WILDCARD = "*"  # in a key: a name such as a mode; the last one may hold dots ("torch.cuda.x")


@dataclass(frozen=True)
class Figure:
    """What one key figure is: `key` is its path in key_figures, a `*` standing for a name
    ("steady_state_ms.*"); `label` fills each `{}` with the name a `*` stood for, in order."""

    experiment: str
    key: str
    label: str
    unit: str
    better: str  # which way is better: lower, higher, closer to 1, or neither (an input, a name)
    how: str  # how it is measured: clock, samples, what the number is of
    trust: str  # when not to trust it

    def __post_init__(self) -> None:
        problems = []
        if self.unit not in UNITS:
            problems.append(f"unit {self.unit!r} is not one of {', '.join(UNITS)}")
        if self.better not in BETTER:
            problems.append(f"better {self.better!r} is not one of {', '.join(BETTER)}")
        if self.label.count("{}") != self.wildcards:
            problems.append("a label needs one {} per * of its key")
        if not (self.label and self.how and self.trust):
            problems.append("label, how and trust are required")
        if problems:
            raise ValueError(f"{self.experiment} {self.key}: {'; '.join(problems)}")

    @property
    def wildcards(self) -> int:
        return self.key.split(".").count(WILDCARD)

    @property
    def numeric(self) -> bool:
        return self.unit in NUMERIC_UNITS

    def names(self, path: str) -> tuple[str, ...] | None:
        """The names the key's `*`s stand for in `path`, or None where the path is not this key."""
        found = _pattern(self.key).fullmatch(path)
        return found.groups() if found else None

    def label_of(self, path: str) -> str:
        names = self.names(path)
        return self.label.format(*names) if names is not None else self.label

    @property
    def help(self) -> str:
        """The tooltip of a metric that shows this figure."""
        return f"{self.how}\n\nWhen not to trust it: {self.trust}"


@lru_cache(maxsize=512)
def _pattern(key: str) -> re.Pattern[str]:
    """A key as a regular expression: a `*` is one name without dots, the last `*` any name."""
    parts = key.split(".")
    last = max((i for i, p in enumerate(parts) if p == WILDCARD), default=-1)
    pieces = [
        ("(.+)" if i == last else "([^.]+)") if p == WILDCARD else re.escape(p)
        for i, p in enumerate(parts)
    ]
    return re.compile(r"\.".join(pieces))


def workload_params(experiment: str) -> Figure:
    """The workload's parameters as a run records them: one entry every experiment with a
    workload shares."""
    return Figure(
        experiment,
        "params.*",
        "workload parameter {}",
        "number",
        "neither",
        "A parameter of the workload as it ran (defaults filled in).",
        "An input, not a measurement.",
    )
