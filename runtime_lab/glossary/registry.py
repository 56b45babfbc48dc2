"""The glossary's one list: every experiment's report/glossary.py, collected, and lookups by path."""

from __future__ import annotations

from functools import cache

from runtime_lab import registry
from runtime_lab.glossary.figure import Figure

# a path with no entry (a stored run's key from before the glossary, or a new one) still reads:
# its words from the path, its unit from the path's suffix ("free_lag_us", "x_bytes")
_SUFFIX_UNITS = {"ms": "ms", "us": "us", "s": "s", "bytes": "bytes", "gbps": "GB/s", "pct": "%"}
_SUFFIX_UNITS["mhz"] = "MHz"


@cache
def figures(experiment: str | None = None) -> tuple[Figure, ...]:
    """Every figure of one experiment, or of all of them in the registry's order."""
    names = registry.NAMES if experiment is None else (experiment,)
    return tuple(f for name in names for f in registry.glossary(name))


def find(experiment: str, path: str) -> Figure | None:
    """The entry that defines `path` ("steady_state_ms.inductor"): a key without `*` first,
    then the one with fewest; None where the glossary has none."""
    matching = [f for f in figures(experiment) if f.names(path) is not None]
    return min(matching, key=lambda f: f.wildcards, default=None)


def covers(experiment: str, path: str) -> bool:
    """Whether the glossary defines `path`, or the figures under it (a section such as
    allocator's "compiled", None on a CPU run, or an empty dict)."""
    if find(experiment, path) is not None:
        return True
    return any(f.key.startswith(f"{path}.") for f in figures(experiment))


def label(experiment: str, path: str) -> str:
    """The figure's words ("inductor steady-state time"), else the path's."""
    found = find(experiment, path)
    if found is not None:
        return found.label_of(path)
    top, _, rest = path.partition(".")
    words = top.replace("_", " ")
    return f"{rest.replace('.', ' · ')} {words}" if rest else words


def unit(experiment: str, path: str) -> str | None:
    """The figure's unit, else the one its path names ("free_lag_us"), else None."""
    found = find(experiment, path)
    if found is not None:
        return found.unit
    for part in reversed(path.split(".")):
        tokens = [t for t in part.split("_") if t in _SUFFIX_UNITS]
        if tokens:
            return _SUFFIX_UNITS[tokens[-1]]
    return None


def better(experiment: str, path: str) -> str:
    found = find(experiment, path)
    return found.better if found is not None else "neither"


def help_text(experiment: str, path: str, detail: str | None = None) -> str | None:
    """A metric's tooltip for the figure at `path`: how it is measured and when not to trust
    it (the glossary's), then what this run adds (`detail`); `detail` alone where the glossary
    has no entry."""
    found = find(experiment, path)
    parts = (found.help if found is not None else None, detail)
    return "\n\n".join(p for p in parts if p) or None
