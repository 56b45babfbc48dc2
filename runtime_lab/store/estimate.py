"""How long a Run will take on this machine: similar finished runs in history, else a measured default."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any

from runtime_lab.options import ExperimentInfo, form_defaults
from runtime_lab.spec import SpecError, spec_from_values

# fields that do not change how long a run takes
_IGNORED = ("seed", "device")


@dataclass(frozen=True)
class Estimate:
    seconds: float  # the figure shown: a median of similar runs, or the measured default
    low_s: float
    high_s: float
    basis: str  # where the figure comes from, said next to it

    def text(self) -> str:
        spread = "" if self.high_s - self.low_s < 2 else f", {self.low_s:.0f}–{self.high_s:.0f} s"
        return f"about {_seconds(self.seconds)} here ({self.basis}{spread})"


def _seconds(value: float) -> str:
    return f"{value:.0f} s" if value < 120 else f"{value / 60:.1f} min"


def device_kind(device: str) -> str:
    return "cuda" if str(device).startswith("cuda") else "cpu"


def _key(spec: dict[str, Any]) -> tuple:
    """A spec without the fields that don't change its duration, comparable across runs."""
    plain = {k: v for k, v in spec.items() if k not in _IGNORED}
    options = plain.pop("options", {})
    items = options.items() if isinstance(options, dict) else options
    return tuple(sorted((k, str(v)) for k, v in plain.items())), tuple(
        sorted((str(k), str(v)) for k, v in items)
    )


def _durations(past: list[dict[str, Any]], kind: str, key: tuple | None) -> list[float]:
    found = []
    for run in past:
        if device_kind(run.get("device", "")) != kind or run.get("status") != "done":
            continue
        if key is not None and _key(run.get("spec") or {}) != key:
            continue
        took = _took(run.get("started_at"), run.get("finished_at"))
        if took is not None:
            found.append(took)
    return found


def _took(started: Any, finished: Any) -> float | None:
    """Seconds from start to end; None unless both are finite numbers in order."""
    if not all(
        isinstance(t, int | float) and not isinstance(t, bool) and t for t in (started, finished)
    ):
        return None
    took = finished - started
    return took if math.isfinite(took) and took >= 0 else None


def here(past: list[dict[str, Any]], host: str | None) -> list[dict[str, Any]]:
    """The runs recorded on this machine: never an imported one (measured on another machine,
    whatever host name it carries), and with `host`, none recorded under another host name (a
    shared data directory). A run stored before hosts were recorded counts."""
    local = [r for r in past if not (r.get("imported") or r.get("origin"))]
    return [r for r in local if r.get("hostname") in (None, host)] if host else local


def estimate(
    info: ExperimentInfo,
    spec: dict[str, Any],
    kind: str,
    past: list[dict[str, Any]],
    host: str | None = None,
) -> Estimate | None:
    """The expected duration of `spec` on this machine's `kind` ("cpu" or "cuda"): the median of
    earlier runs of the same spec here, else the measured duration of the page's defaults when
    spec is them, else the range of this experiment's runs here; None when nothing is known.
    Only runs recorded here count (`here`): an imported run's time was another machine's."""
    past = here(past, host)
    same = _durations(past, kind, _key(spec))
    if same:
        n = len(same)
        basis = f"median of {n} earlier run{'s' if n > 1 else ''} of this spec"
        return Estimate(statistics.median(same), min(same), max(same), basis)
    measured = info.default_run_s.get(kind)
    if measured and _is_default(info, spec, kind):
        return Estimate(measured, measured, measured, info.default_run_basis)
    others = _durations(past, kind, None)
    if others:
        n = len(others)
        basis = f"other specs of this experiment took this long ({n} run{'s' if n > 1 else ''})"
        return Estimate(statistics.median(others), min(others), max(others), basis)
    return None


def _is_default(info: ExperimentInfo, spec: dict[str, Any], kind: str) -> bool:
    try:
        default = spec_from_values(info.name, form_defaults(info, gpu=kind == "cuda"))
    except SpecError:
        return False
    return _key(default.to_dict()) == _key(spec)
