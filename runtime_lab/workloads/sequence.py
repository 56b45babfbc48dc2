"""A shape sequence against its workload: one number per named dim, presets along a dim, marks."""

from __future__ import annotations

from typing import Any

from runtime_lab.quote import quote
from runtime_lab.shapes import PRESETS, Entry, Presets, dim_presets, entry_text, parse_sequence
from runtime_lab.workloads.declare import WorkloadInfo, shape_text
from runtime_lab.workloads.registry import WORKLOADS

AUTO = "auto"


def presets_of(work: WorkloadInfo, base: tuple[int, ...] | None = None) -> Presets:
    """The presets a sequence of this workload may name: growing-DIM and varying-DIM along each
    named dim (declared dynamic dims first) from base (default: its default shape), then the
    lab's 2-dim ones where it has 2 dims; its own win a clash of names."""
    order = (*work.dynamic_dims, *(d for d in work.dims if d not in work.dynamic_dims))
    own = dim_presets(work.dims, tuple(base or work.default_shape), order)
    lab = PRESETS if len(work.dims) == 2 else {}
    return {**own, **{k: v for k, v in lab.items() if k not in own}}


def first_dynamic(work: WorkloadInfo) -> str:
    return (work.dynamic_dims or work.dims)[0]


def _dims_help(work: WorkloadInfo) -> str:
    return ", ".join(f"{d} ({i})" for i, d in enumerate(work.dims))


def entries_of(work: WorkloadInfo, value: Any) -> list[Entry]:
    """The sequence's entries, each one number per named dim in a dtype the workload runs;
    ValueError names the workload's dims (and its presets) when one is not."""
    entries = parse_sequence(value, presets_of(work))
    for number, (shape, dtype) in enumerate(entries, start=1):
        shown = entry_text(shape, dtype)
        if len(shape) != len(work.dims):
            raise ValueError(
                f"shape {number} ({shown!r}) has {len(shape)} dim{'s' if len(shape) != 1 else ''}"
                f"; {work.name} takes {len(work.dims)} per shape: {work.dims_text}, e.g. "
                f"{shape_text(work.default_shape)}, or a preset such as "
                f"growing-{first_dynamic(work)}"
            )
        if dtype and dtype not in work.dtypes:
            raise ValueError(
                f"shape {number} ({shown!r}): {work.name} runs in {', '.join(work.dtypes)}"
            )
    return entries


def varied(work: WorkloadInfo, entries: list[Entry]) -> tuple[int, ...]:
    """Indices of the dims whose size changes along the sequence."""
    shapes = [s for s, _ in entries]
    return tuple(i for i in range(len(work.dims)) if len({s[i] for s in shapes}) > 1)


def dims_of(work: WorkloadInfo, value: Any, entries: list[Entry]) -> tuple[int, ...]:
    """The dims to mark: names or indices, comma-joined; auto: those the sequence varies (what
    a dynamic batcher changes), else the workload's declared dynamic dims. ValueError if not."""
    text = str(value if value is not None else "").strip().lower()
    if text == AUTO:
        return varied(work, entries) or tuple(work.dims.index(d) for d in work.dynamic_dims)
    allowed = f"{AUTO}, or names or indices of {_dims_help(work)}, comma-joined"
    picked = [p.strip() for p in text.replace(";", ",").split(",") if p.strip()]
    if not picked:
        raise ValueError(f"nothing chosen; allowed: {allowed}")
    found = set()
    for part in picked:
        if part in work.dims:
            found.add(work.dims.index(part))
        elif part.isascii() and part.isdigit() and int(part) < len(work.dims):
            found.add(int(part))
        else:
            raise ValueError(f"{quote(part)} is not a dim of {work.name}; allowed: {allowed}")
    return tuple(sorted(found))


def fit_sequence(name: str, specs: dict, given: dict, opts: dict, problems: dict) -> None:
    """For an experiment with a workload: its shape sequence (kind shapes) checked entry by
    entry against the workload's dims, presets expanded, and its dims to mark (kind dims) as
    canonical indices ("0,1"); each misfit goes into problems under its option's name."""
    work = WORKLOADS[name]
    entries: list[Entry] = []
    for field, spec in specs.items():
        if spec.kind == "shapes":
            problems.pop(field, None)  # the lab's presets were tried first: the workload's decide
            value = given.get(field, spec.default)
            try:
                entries = entries_of(work, value)
                opts[field] = ",".join(entry_text(*e) for e in entries)
            except ValueError as exc:
                problems[field] = f"{quote(value) if isinstance(value, str) else value} {exc}"
    for field, spec in specs.items():
        if spec.kind == "dims" and entries:
            try:
                opts[field] = ",".join(map(str, dims_of(work, opts[field], entries)))
            except ValueError as exc:
                problems[field] = str(exc)


def form_presets(name: str | None, full: bool) -> Presets:
    """The presets a form offers for a sequence of this workload (None: the lab's), sized as
    the form is: the default shape, or the CPU shape on a machine without a GPU."""
    if name is None or name not in WORKLOADS:
        return PRESETS
    work = WORKLOADS[name]
    return presets_of(work, work.default_shape if full else work.cpu_shape)


def starting_sequence(name: str, full: bool) -> str:
    """What a form's sequence starts from when this workload is chosen: growing along its first
    dynamic dim, sized as the form is."""
    work = WORKLOADS[name]
    return form_presets(name, full)[f"growing-{first_dynamic(work)}"][1](0)
