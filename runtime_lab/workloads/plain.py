"""A workload's declaration as plain JSON and back, checked field by field (no torch)."""

from __future__ import annotations

import re
from dataclasses import asdict, fields
from typing import Any

from runtime_lab.workloads.declare import ALL_DTYPES, BOUNDS, Preset, WorkloadInfo, shape_text

NAME_RE = re.compile(r"[a-z][a-z0-9_\-]{0,39}")
PRESET_RE = re.compile(r"[a-z0-9][a-z0-9_.\-]{0,59}")
MAX_TEXT = 4000  # a title, formula or paragraph longer than this is not a declaration
MAX_DIM = 2**31 - 1


class BadDeclaration(ValueError):
    """One field of a declaration is missing or ill-typed; the message names it."""


def to_plain(work: WorkloadInfo) -> dict[str, Any]:
    data = asdict(work)
    data["params"] = dict(work.params)
    data["cpu_params"] = dict(work.cpu_params)
    data["presets"] = [
        {"name": p.name, "shape": p.shape_text, "params": dict(p.params), "source": p.source}
        for p in work.presets
    ]
    data["default_shape"] = shape_text(work.default_shape)
    data["cpu_shape"] = shape_text(work.cpu_shape)
    return data


def from_plain(data: Any) -> WorkloadInfo:
    """to_plain's output (from a worker or the describe child) as a WorkloadInfo, checked."""
    if not isinstance(data, dict):
        raise BadDeclaration(f"a workload must be an object, got {type(data).__name__}")
    known = {f.name for f in fields(WorkloadInfo)}
    given = {k: v for k, v in data.items() if k in known}
    given["dims"] = tuple(_list(given, "dims"))
    for key in ("default_shape", "cpu_shape"):
        given[key] = _shape_value(given.get(key), key)
    for key in ("params", "cpu_params"):
        given[key] = tuple(sorted(_dict(given, key).items()))
    for key in ("dtypes", "dynamic_dims"):
        if key in given:
            given[key] = tuple(_list(given, key))
    presets = []
    for item in _list(given, "presets"):
        item = item if isinstance(item, dict) else {}
        shape = _shape_value(item.get("shape"), "presets[].shape")
        params = tuple(sorted(dict(item.get("params") or {}).items()))
        presets.append(Preset(item.get("name"), shape, params, item.get("source") or ""))
    given["presets"] = tuple(presets)
    given["extra"] = dict(given.get("extra") or {})
    given["multiple_of"] = tuple(
        tuple(rule) if isinstance(rule, (list, tuple)) else rule
        for rule in _list(given, "multiple_of")
    )
    try:
        info = WorkloadInfo(**given)
    except TypeError as exc:
        raise BadDeclaration(f"missing field: {exc}") from None
    check(info)
    return info


def _list(data: dict, key: str) -> list:
    value = data.get(key) or []
    if not isinstance(value, (list, tuple)):
        raise BadDeclaration(f"{key}: must be a list, got {type(value).__name__}")
    return list(value)


def _dict(data: dict, key: str) -> dict:
    value = data.get(key) or {}
    if isinstance(value, (list, tuple)):
        value = dict(value)
    if not isinstance(value, dict):
        raise BadDeclaration(f"{key}: must be name=integer pairs, got {type(value).__name__}")
    return value


def _shape_value(value: Any, where: str) -> tuple[int, ...]:
    if isinstance(value, str):
        value = value.split("x")
    if not isinstance(value, (list, tuple)):
        raise BadDeclaration(f"{where}: must be a shape (a tuple of integers)")
    try:
        return tuple(int(d) for d in value)
    except (TypeError, ValueError):
        raise BadDeclaration(f"{where}: must be a shape (a tuple of integers)") from None


def check(info: WorkloadInfo) -> None:
    """Every field of a declaration the pages, the CLI and the spec check rely on."""
    if not isinstance(info.name, str) or not NAME_RE.fullmatch(info.name):
        raise BadDeclaration(
            f"name {info.name!r}: must be 1 to 40 of a-z, 0-9, '_' and '-', starting with a letter"
        )
    for key in ("title", "look_for", "formula"):
        value = getattr(info, key)
        if not isinstance(value, str) or len(value) > MAX_TEXT:
            raise BadDeclaration(f"{key}: must be text of at most {MAX_TEXT} characters")
    if not info.title.strip():
        raise BadDeclaration("title: must not be empty")
    dims = info.dims
    if not 1 <= len(dims) <= 4 or not all(isinstance(d, str) and d.isidentifier() for d in dims):
        raise BadDeclaration("dims: must name 1 to 4 dimensions, e.g. ('tokens', 'hidden')")
    if len(set(dims)) != len(dims):
        raise BadDeclaration(f"dims: {dims} names a dimension twice")
    for key in ("default_shape", "cpu_shape"):
        _shape(key, getattr(info, key), dims)
    if info.bound not in BOUNDS:
        raise BadDeclaration(f"bound {info.bound!r}: must be one of {', '.join(BOUNDS)}")
    for key in ("params", "cpu_params"):
        _params(key, getattr(info, key))
    unknown = set(dict(info.cpu_params)) - set(dict(info.params))
    if unknown:
        raise BadDeclaration(f"cpu_params: {sorted(unknown)} are not in params")
    if not info.dtypes or not set(info.dtypes) <= set(ALL_DTYPES):
        raise BadDeclaration(f"dtypes {info.dtypes}: must be some of {', '.join(ALL_DTYPES)}")
    if not set(info.dynamic_dims) <= set(dims):
        raise BadDeclaration(f"dynamic_dims {info.dynamic_dims}: must be among dims {dims}")
    for preset in info.presets:
        if not isinstance(preset.name, str) or not PRESET_RE.fullmatch(preset.name):
            raise BadDeclaration(f"preset name {preset.name!r}: must be like 'llama3-8b-4k'")
        _shape(f"preset {preset.name}", preset.shape, dims)
        _params(f"preset {preset.name} params", preset.params)
    _multiples(info)


def _multiples(info: WorkloadInfo) -> None:
    """multiple_of names dims or params (or a number ≥ 1), and the declared shapes keep it."""
    names = (*info.dims, *dict(info.params))
    for rule in info.multiple_of:
        ok = isinstance(rule, tuple) and len(rule) == 2 and rule[0] in names
        ok = ok and (rule[1] in names if isinstance(rule[1], str) else type(rule[1]) is int)
        if not ok or (type(rule[1]) is int and rule[1] < 1):
            raise BadDeclaration(
                f"multiple_of {rule!r}: must be (dim or param, dim, param or integer ≥ 1) pairs "
                "such as ('hidden', 'heads')"
            )
    cpu = dict(info.cpu_params)
    declared = [("default_shape", info.default_shape, {}), ("cpu_shape", info.cpu_shape, cpu)]
    declared += [(f"preset {p.name}", p.shape, dict(p.params)) for p in info.presets]
    for where, shape, params in declared:
        if why := info.misfit(shape, params):
            raise BadDeclaration(f"{where}: {why}")


def _shape(where: str, shape: Any, dims: tuple[str, ...]) -> None:
    ok = isinstance(shape, tuple) and all(type(d) is int and 1 <= d <= MAX_DIM for d in shape)
    if not ok:
        raise BadDeclaration(f"{where} {shape!r}: must be a tuple of positive integers")
    if len(shape) != len(dims):
        raise BadDeclaration(f"{where} {shape!r}: has {len(shape)} dims; dims are {dims}")


def _params(where: str, params: Any) -> None:
    ok = isinstance(params, tuple) and all(
        isinstance(p, tuple)
        and len(p) == 2
        and isinstance(p[0], str)
        and p[0].isidentifier()
        and type(p[1]) is int
        for p in params
    )
    if not ok:
        raise BadDeclaration(
            f"{where}: must be (name, integer) pairs, e.g. (('intermediate', 4096),)"
        )
