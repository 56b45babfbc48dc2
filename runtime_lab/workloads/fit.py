"""A spec against its workload: the shape's dims, a preset by name, the dtype, the parameters."""

from __future__ import annotations

import re
from typing import Any

from runtime_lab.quote import cut, quote
from runtime_lab.shapes import MAX_ELEMENTS, parse_shape
from runtime_lab.workloads.declare import WorkloadInfo, shape_text
from runtime_lab.workloads.registry import WORKLOADS

MAX_PARAM = 2**20
PARAMS_HELP = "name=integer pairs joined by commas, e.g. intermediate=14336"
_INTEGER = re.compile(r"[+-]?[0-9]+")  # ASCII digits: int() also takes other scripts' and "1_0"


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
    dims = parse_shape(value, max_elements=None)
    if len(dims) != len(work.dims):
        raise ValueError(
            f"has {len(dims)} dimension{'s' if len(dims) != 1 else ''}; {work.name} takes "
            f"{len(work.dims)}: {work.dims_text} (e.g. {shape_text(work.default_shape)})"
        )
    if (largest := work.largest_tensor(dims)) > MAX_ELEMENTS:
        raise ValueError(
            f"makes a tensor of {largest:.3g} elements, above the lab's limit; allowed: at "
            f"most {MAX_ELEMENTS:.3g} elements (2^34) per tensor"
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
                f"{quote(pair)}: {work.name} has no parameter {quote(name)}; its parameters: "
                f"{allowed}"
            )
        if not sep or not _INTEGER.fullmatch(number.strip()):
            raise ValueError(f"{quote(pair)} is not name=integer; allowed: {PARAMS_HELP}")
        digits = number.strip().lstrip("+").lstrip("0") or "0"
        if len(digits) > 8 or not 1 <= int(digits) <= MAX_PARAM:  # "-5" is 8 digits at most
            raise ValueError(f"{quote(pair)}: {name} takes a whole number from 1 to {MAX_PARAM:,}")
        found[name] = int(digits)
    return found


def spec_params(spec) -> dict[str, int]:
    """The parameters a RunSpec gives its workload (its `params` option), as typed."""
    return params_of(WORKLOADS[spec.option("workload")], spec.option("params"))


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
    if dtype not in work.dtypes:  # a dtype the lab has no such name for is said already
        problems.setdefault("dtype", f"{dtype!r}: {name} runs in {', '.join(work.dtypes)}")
    # a preset fixes the config's parameters; what is typed beside it wins
    merged = preset_params | typed
    why = work.misfit(dims, merged) if not {"shape", "params"} & set(problems) else None
    if why:  # said under what was typed: the params when any were given, else the shape
        problems["params" if typed else "shape"] = why
    return dims, params_text(merged)


def _shown(value: Any) -> str:
    text = str(value)
    return repr(text if len(text) <= 40 else text[:40] + "…")


def _show(value: Any) -> str:
    """As spec.py echoes a value: quoted, one line, cut with its length said (quote.py)."""
    return quote(value) if isinstance(value, str) else cut(repr(value))


def check_name(option: str, value: Any, problems: dict[str, str]) -> Any:
    """The workload option: a name in the registry as it is now (a worker may have added the
    user's since this module was imported)."""
    if value not in WORKLOADS:
        problems[option] = f"{_show(value)} is not allowed; allowed: {', '.join(WORKLOADS)}"
    return value


def any_shape(shape: Any, problems: dict[str, str]) -> tuple[int, ...]:
    """A shape of 1 to 4 dims, whatever the workload (the experiment reads it its own way)."""
    try:
        return parse_shape(shape)
    except ValueError as exc:
        problems["shape"] = f"{_show(shape)} {exc}"
        return (1,)


def fit_spec(info, opts: dict, given: dict, shape: Any, dtype: str, problems: dict[str, str]):
    """build_spec's workload step: the main shape against the workload's dims (or, for a
    workload the experiment reads its own way, any shape), each entry of a shape sequence,
    the params made canonical in opts. Returns the run's dims (None with a sequence)."""
    from runtime_lab.workloads.sequence import entries_of, fit_sequence

    workload = info.option_of("workload")
    sequence = info.option_of("shapes")
    own = opts[workload] in info.own_shapes  # the experiment's shape, not the workload's dims
    given_shape = None if own or sequence else shape  # a sequence: each entry, below
    dims, opts["params"] = fit(opts[workload], given_shape, dtype, opts.get("params"), problems)
    if sequence is not None:  # one number per named dim in each entry, and the dims to mark
        fit_sequence(opts[workload], info.options, given, opts, problems)
        if not {sequence, "params"} & set(problems):
            work = WORKLOADS[opts[workload]]
            _entry_misfit(
                work, entries_of(work, opts[sequence]), opts["params"], sequence, problems
            )
        return None
    if own:  # checked as any shape: 1 to 4 dims
        return any_shape(info.default_shape if shape is None else shape, problems)
    return dims


def _entry_misfit(work: WorkloadInfo, entries, params: str, field: str, problems: dict) -> None:
    """The first entry of a shape sequence that breaks the workload's multiple_of rules."""
    given = params_of(work, params)
    for number, (shape, _) in enumerate(entries, start=1):
        if why := work.misfit(shape, given):
            problems[field] = f"shape {number} ({shape_text(shape)}): {why}"
            return
