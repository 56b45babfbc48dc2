"""What a recipe is: the devices it runs on, the settings it takes, and how it measures."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from runtime_lab.quote import NUMBER, quote

if TYPE_CHECKING:  # the harness imports the lab's runner: --list never needs it
    from benchmarks.harness import Bench


FLAGS = ("yes", "no", "true", "false", "1", "0")
MAX_ITEMS = 32  # entries of a list setting: sides, sweeps
MAX_TEXT = 200  # characters of a free-text setting


class SettingError(ValueError):
    """A `--set NAME=VALUE` the recipe does not take, or a value of the wrong kind."""


@dataclass(frozen=True)
class Setting:
    """One knob of a recipe: its default (as typed on the command line), what it sets, and
    what it allows: `check` raises ValueError for any other value (every value has a range,
    checked before anything is measured; see the constructors below)."""

    default: str
    help: str
    allowed: str = "any text"
    check: Callable[[str], Any] | None = None


def _whole(low: int, high: int) -> Callable[[str], int]:
    def check(text: str) -> int:
        if not (re.fullmatch(r"[+-]?[0-9]{1,9}", text.strip()) and low <= int(text) <= high):
            raise ValueError
        return int(text)

    return check


def whole(default: str, help: str, low: int, high: int) -> Setting:
    return Setting(default, help, f"a whole number from {low} to {high}", _whole(low, high))


def number(default: str, help: str, low: float, high: float) -> Setting:
    def check(text: str) -> float:
        if not (NUMBER.fullmatch(text.strip()) and low <= float(text) <= high):
            raise ValueError
        return float(text)

    return Setting(default, help, f"a number from {low:g} to {high:g}", check)


def flag(default: str, help: str) -> Setting:
    def check(text: str) -> bool:
        if text.strip().lower() not in FLAGS:
            raise ValueError
        return True

    return Setting(default, help, "yes or no", check)


def some_of(default: str, help: str, choices: tuple[str, ...], empty: str = "") -> Setting:
    """A comma list of some of `choices`; empty allowed only where `empty` says what it means."""

    def check(text: str) -> tuple[str, ...]:
        items = _items(text)
        if (not items and not empty) or any(item not in choices for item in items):
            raise ValueError
        return items

    allowed = f"some of {', '.join(choices)}, comma-separated" + (f" ({empty})" if empty else "")
    return Setting(default, help, allowed, check)


def one_of(default: str, help: str, choices: tuple[str, ...]) -> Setting:
    def check(text: str) -> str:
        if text.strip() not in choices:
            raise ValueError
        return text.strip()

    return Setting(default, help, f"one of {', '.join(choices)}", check)


def sides(default: str, help: str, low: int, high: int, empty: str = "") -> Setting:
    """A comma list of whole numbers (square sides, say), each in range; at most MAX_ITEMS."""
    each = _whole(low, high)

    def check(text: str) -> tuple[int, ...]:
        items = _items(text)
        if (not items and not empty) or len(items) > MAX_ITEMS:
            raise ValueError
        return tuple(each(item) for item in items)

    allowed = f"up to {MAX_ITEMS} whole numbers from {low} to {high}, comma-separated"
    return Setting(default, help, allowed + (f" ({empty})" if empty else ""), check)


def shape(default: str, help: str, empty: str = "") -> Setting:
    """A shape the lab takes (1 to 4 positive integers: 64x64), checked as a Run checks it."""

    def check(text: str) -> tuple[int, ...]:
        if not text.strip():
            if empty:
                return ()
            raise ValueError
        from runtime_lab.shapes import parse_shape  # the lab's own rule (no torch)

        return parse_shape(text)

    allowed = "1 to 4 positive integers such as 64x64" + (f" ({empty})" if empty else "")
    return Setting(default, help, allowed, check)


def fusion_modes() -> tuple[str, ...]:
    """The modes fusion's form offers (the registry's info: no torch)."""
    from runtime_lab.registry import EXPERIMENTS

    return tuple(EXPERIMENTS["fusion"].options["modes"].choices)


def _items(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


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
        if value not in FLAGS:
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
        values |= given
        for name, text in values.items():
            _check(name, text, self.settings[name])
        return Settings(tuple(values.items()))


def _check(name: str, text: str, setting: Setting) -> None:
    """SettingError, one line: the value as given (cut) and what the setting allows."""
    if setting.check is None:
        if len(text) <= MAX_TEXT:
            return
        raise SettingError(f"{name}={quote(text)}: allowed: at most {MAX_TEXT} characters")
    try:
        setting.check(text)
    except (ValueError, OverflowError) as exc:
        why = f" ({exc})" if str(exc) else ""
        raise SettingError(
            f"{name}={quote(text)} is not allowed{why}; allowed: {setting.allowed}"
        ) from None
