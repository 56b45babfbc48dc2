"""What a recipe is: the devices it runs on, the settings it takes, and how it measures."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the harness imports the lab's runner: --list never needs it
    from benchmarks.harness import Bench


class SettingError(ValueError):
    """A `--set NAME=VALUE` the recipe does not take, or a value of the wrong kind."""


@dataclass(frozen=True)
class Setting:
    """One knob of a recipe: its default (as typed on the command line) and what it sets."""

    default: str
    help: str


@dataclass(frozen=True)
class Settings:
    """A recipe's settings as given over its defaults, read by kind."""

    values: tuple[tuple[str, str], ...]

    def text(self, name: str) -> str:
        return dict(self.values)[name]

    def whole(self, name: str) -> int:
        return int(self._number(name, int))

    def number(self, name: str) -> float:
        return float(self._number(name, float))

    def items(self, name: str) -> tuple[str, ...]:
        """A comma list: `a,b,c` -> ("a", "b", "c"); empty -> ()."""
        return tuple(part.strip() for part in self.text(name).split(",") if part.strip())

    def flag(self, name: str) -> bool:
        value = self.text(name).strip().lower()
        if value not in ("yes", "no", "true", "false", "1", "0"):
            raise SettingError(f"{name}={value!r}: say yes or no")
        return value in ("yes", "true", "1")

    def _number(self, name: str, kind: type) -> float:
        try:
            return kind(self.text(name))
        except ValueError:
            raise SettingError(f"{name}={self.text(name)!r} is not a number") from None

    def as_dict(self) -> dict[str, str]:
        return dict(self.values)


@dataclass(frozen=True)
class Recipe:
    """A recurring measurement: the specs it submits and the figures it prints, in `measure`
    (which returns the headline figures for the JSON)."""

    name: str
    summary: str
    measure: Callable[[Bench, Settings], dict[str, Any]]
    devices: tuple[str, ...] = ("cpu", "cuda")  # what --device may be; auto prefers cuda
    settings: Mapping[str, Setting] = field(default_factory=dict)
    replaces: str = ""  # the script it grew from (the docs' evidence names it)

    @property
    def needs_cuda(self) -> bool:
        return self.devices == ("cuda",)

    def read(self, given: Mapping[str, str]) -> Settings:
        """The defaults overridden by `given`; SettingError names an unknown setting."""
        unknown = sorted(set(given) - set(self.settings))
        if unknown:
            known = ", ".join(self.settings) or "none"
            raise SettingError(f"{self.name} has no setting {unknown[0]!r}; its settings: {known}")
        values = {name: setting.default for name, setting in self.settings.items()}
        return Settings(tuple({**values, **given}.items()))
