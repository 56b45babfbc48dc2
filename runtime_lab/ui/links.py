"""Specs as URL query parameters: a link fills an experiment's form (and never runs it)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from runtime_lab.options import ExperimentInfo
from runtime_lab.quote import cut, quote
from runtime_lab.shapes import DTYPES, MAX_TEXT
from runtime_lab.spec import COMMON_FIELDS as COMMON
from runtime_lab.spec import RunSpec, SpecError, spec_from_values

# Streamlit's own query parameters: they are not spec fields and never a problem
STREAMLIT_KEYS = ("embed", "embed_options")
_TRUE, _FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off")
LINK_CHARS = MAX_TEXT  # of one link value: the longest any field takes (a shape sequence)
SAID = 10  # link values a page names one by one; the rest are counted in one line


def to_query(spec: RunSpec) -> dict[str, str]:
    """The spec as query parameters named as its fields and options (values as the form takes)."""
    query = {
        "shape": spec.shape_text,
        "dtype": spec.dtype,
        "device": spec.device,
        "warmup": str(spec.warmup),
        "repeat": str(spec.repeat),
        "l2_flush": _word(spec.l2_flush),
    }
    if spec.seed:
        query["seed"] = str(spec.seed)
    query |= {name: _word(value) for name, value in spec.options}
    return query


def _word(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def tag(query: Mapping[str, str]) -> str:
    """A short digest of the link's values: widget keys carry it, so a new link refills the form."""
    items = sorted((k, v) for k, v in query.items() if k not in STREAMLIT_KEYS)
    return hashlib.sha1(repr(items).encode()).hexdigest()[:8] if items else ""


def from_query(
    info: ExperimentInfo, query: Mapping[str, str], values: dict[str, Any], devices: list[str]
) -> tuple[dict[str, Any], dict[str, str]]:
    """The form's values with the link's applied, and a message per link value it could not
    take (in the form's own words: what was given, what is allowed)."""
    values, problems = dict(values), {}
    for key, raw in query.items():
        if key in STREAMLIT_KEYS:
            continue
        key = info.renamed.get(key, key)  # a link from before an option's rename
        try:
            values[key] = _value(info, key, _bounded(str(raw)), devices)
        except ValueError as exc:  # a long unknown name is cut too: the page shows it
            problems[cut(key)] = str(exc)
    if len(problems) > SAID:  # a link of a thousand bad keys is one page, not a thousand lines
        rest = len(problems) - SAID
        problems = dict(list(problems.items())[:SAID])
        problems["…"] = f"and {rest:,} more link values not taken"
    if "shape" not in query:  # a link naming a workload but no shape: the workload's own
        values = _workload_shape(info, values)
    if not problems:
        problems = _spec_problems(info, values)
    return values, problems


def _workload_shape(info: ExperimentInfo, values: dict[str, Any]) -> dict[str, Any]:
    from runtime_lab.workloads.registry import WORKLOADS

    name = values.get(info.option_of("workload") or "")
    work = WORKLOADS.get(name) if name else None
    if work is None or name in info.own_shapes:  # own: the experiment's shape as it is
        return values
    if len(str(values.get("shape", "")).split("x")) == len(work.dims):
        return values
    return values | {"shape": "x".join(map(str, work.cpu_shape))}


def _bounded(raw: str) -> str:
    if len(raw) > LINK_CHARS:
        raise ValueError(
            f"{quote(raw)} is too long; a link value holds at most {LINK_CHARS:,} characters"
        )
    return raw


def _value(info: ExperimentInfo, key: str, raw: str, devices: list[str]) -> Any:
    if key in COMMON:
        return _common(key, raw, devices)
    option = info.options.get(key)
    if option is None:
        fields = ", ".join((*COMMON, *info.options))
        raise ValueError(f"is not a field of {info.name}; link fields: {fields}")
    if option.kind == "bool":
        return _bool(raw)
    if option.kind == "multi":
        chosen = [c.strip() for c in raw.split(",") if c.strip()]
        unknown = [c for c in chosen if c not in option.choices]
        if unknown:
            raise ValueError(f"{quote(unknown[0])} is not one of {', '.join(option.choices)}")
        return ",".join(chosen)
    if option.choices:
        if raw not in option.choices:
            raise ValueError(f"{quote(raw)} is not one of {', '.join(option.choices)}")
        return raw
    if option.kind == "workload":
        from runtime_lab.workloads.registry import WORKLOADS

        if raw not in WORKLOADS:
            raise ValueError(
                f"{quote(raw)} is not a workload of this lab; known: {', '.join(WORKLOADS)}"
            )
        return raw
    if option.kind == "int":
        return _int(raw, f"a whole number from {option.low} to {option.high}")
    return raw  # sizes and shape sequences: build_spec says what is wrong with them


def _common(key: str, raw: str, devices: list[str]) -> Any:
    if key == "dtype" and raw not in DTYPES:
        raise ValueError(f"{quote(raw)} is not supported; allowed: {', '.join(DTYPES)}")
    if key == "device" and raw not in devices:
        raise ValueError(
            f"{quote(raw)} is not a device of this machine; allowed: {', '.join(devices)}"
        )
    if key in ("warmup", "repeat", "seed"):
        return _int(raw, "a whole number")
    if key == "l2_flush":
        return _bool(raw)
    return raw


def _int(raw: str, allowed: str) -> int:
    if not (raw.isascii() and raw.lstrip("-").isdigit() and len(raw) <= 12):
        raise ValueError(f"{quote(raw)} is not {allowed}")
    return int(raw)


def _bool(raw: str) -> bool:
    if raw.lower() in _TRUE:
        return True
    if raw.lower() in _FALSE:
        return False
    raise ValueError(f"{quote(raw)} is not true or false")


def _spec_problems(info: ExperimentInfo, values: dict[str, Any]) -> dict[str, str]:
    """What build_spec says about the filled form: the messages a Run would give."""
    try:
        spec_from_values(info.name, values)
    except SpecError as exc:
        return exc.problems
    return {}
