"""A spec against its workload: the shape's dims, a preset by name, the dtype, the parameters."""

from __future__ import annotations

import re
from typing import Any

from runtime_lab.shapes import parse_shape
from runtime_lab.workloads.declare import WorkloadInfo, shape_text
from runtime_lab.workloads.registry import WORKLOADS

MAX_PARAM = 2**20
PARAMS_HELP = "name=integer pairs joined by commas, e.g. intermediate=14336"


def presets_text(work: WorkloadInfo) -> str:
    return ", ".join(p.name for p in work.presets) or "none"


def shape_of(work: WorkloadInfo, value: Any) -> tuple[tuple[int, ...], dict[str, int]]:
    """A shape (one number per named dim) or a preset's name → (shape, the preset's params).
    None (not given): the workload's default shape. ValueError says what the workload allows."""
    if value is None:
        return work.default_shape, {}
    text = str(value).strip()
    if text[:1].isalpha():
        found = work.preset(text)
        if found is None:
            raise ValueError(
                f"is not a shape or a preset of {work.name}; allowed: one positive integer per "
                f"dim ({work.dims_text}) or a preset: {presets_text(work)}"
            )
        return found.shape, dict(found.params)
    dims = parse_shape(value)
    if len(dims) != len(work.dims):
        raise ValueError(
            f"has {len(dims)} dimension{'s' if len(dims) != 1 else ''}; {work.name} takes "
            f"{len(work.dims)}: {work.dims_text} (e.g. {shape_text(work.default_shape)})"
        )
    return dims, {}


def params_of(work: WorkloadInfo, value: Any) -> dict[str, int]:
    """name=int pairs as typed ("" or None: none) → a dict; ValueError names what is allowed."""
    allowed = ", ".join(f"{k} (default {v})" for k, v in work.params) or "none"
    pairs = [p.strip() for p in re.split(r"[,;\s]+", str(value or "").strip()) if p.strip()]
    found: dict[str, int] = {}
    for pair in pairs:
        name, sep, number = pair.partition("=")
        name = name.strip().lower()
        if name not in work.param_defaults():
            raise ValueError(
                f"{pair!r}: {work.name} has no parameter {name!r}; its parameters: {allowed}"
            )
        if not sep or not re.fullmatch(r"[0-9]{1,7}", number.strip()):
            raise ValueError(f"{pair!r} is not name=integer; allowed: {PARAMS_HELP}")
        if not 1 <= int(number) <= MAX_PARAM:
            raise ValueError(f"{pair!r} is out of range; allowed 1 to {MAX_PARAM}")
        found[name] = int(number)
    return found


def params_text(params: dict[str, int]) -> str:
    """Canonical text: sorted by name, so equal specs compare equal."""
    return ",".join(f"{k}={params[k]}" for k in sorted(params))


def fit(
    name: str, shape: Any, dtype: str, params: Any, problems: dict[str, str]
) -> tuple[tuple[int, ...], str]:
    """(shape, canonical params) for a workload spec; every misfit goes into problems."""
    work = WORKLOADS[name]
    dims, preset_params = work.default_shape, {}
    try:
        dims, preset_params = shape_of(work, shape)
    except ValueError as exc:
        problems["shape"] = f"{_shown(shape)} {exc}"
    try:
        typed = params_of(work, params)
    except ValueError as exc:
        problems["params"] = str(exc)
        typed = {}
    if dtype not in work.dtypes:
        problems["dtype"] = f"{dtype!r}: {name} runs in {', '.join(work.dtypes)}"
    # a preset fixes the config's parameters; what is typed beside it wins
    return dims, params_text(preset_params | typed)


def _shown(value: Any) -> str:
    text = str(value)
    return repr(text if len(text) <= 40 else text[:40] + "…")
