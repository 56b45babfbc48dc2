"""Shapes and shape sequences: parsing, canonical text, presets for what-if runs, bucketing."""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable
from typing import Any

DTYPES = ("float32", "bfloat16", "float16")
DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}
MAX_DIMS = 4
MAX_DIM = 2**31 - 1
MAX_ELEMENTS = 2**34  # 64 GiB of fp32: beyond any single tensor a lab run needs
SHAPE_HELP = "1 to 4 positive integers, e.g. 4096x4096, 4096,4096 or 4096 4096"
NON_ASCII_DIGITS = "uses digits other than 0-9 (type the number with ASCII digits)"
MAX_SHAPE_TEXT = 200
MAX_ENTRIES = 32  # calls in a sequence
MAX_TEXT = 4000  # characters of a sequence
DTYPE_ALIASES = {
    "fp32": "float32",
    "float": "float32",
    "fp16": "float16",
    "half": "float16",
    "bf16": "bfloat16",
}
ENTRY_HELP = "1 to 4 positive integers joined by x, e.g. 512x512 or 8x512:float16"
Entry = tuple[tuple[int, ...], str | None]  # (shape, dtype or None: the run's dtype)


def parse_shape(text: Any, max_elements: int | None = MAX_ELEMENTS) -> tuple[int, ...]:
    """Parse '4096x4096', '4096,4096', '4096 4096' (or a sequence of ints) into a shape tuple.
    max_elements bounds the product of the dims where they are one tensor's; None where they
    are not (a workload's named dims: a GEMM's M x N x K is three operands, not one tensor,
    and its footprint is checked against the device's memory instead)."""
    if isinstance(text, (list, tuple)):
        parts = [str(p) for p in text]
    else:
        raw = str(text if text is not None else "").strip()
        if not raw:
            raise ValueError(f"is empty; expected {SHAPE_HELP}")
        if len(raw) > MAX_SHAPE_TEXT:
            raise ValueError(f"is {len(raw)} characters long; expected {SHAPE_HELP}")
        parts = [p for p in re.split(r"\s*[x×X,]\s*|\s+", raw)]
    if not parts or len(parts) > MAX_DIMS:
        raise ValueError(f"has {len(parts)} dimensions; expected {SHAPE_HELP}")
    dims = []
    for part in parts:
        shown = part if len(part) <= 20 else part[:20] + "…"
        if part.strip().isdigit() and not part.strip().isascii():
            raise ValueError(f"dimension {shown!r} {NON_ASCII_DIGITS}; expected {SHAPE_HELP}")
        if not re.fullmatch(r"[+]?[0-9]+", part.strip()):
            raise ValueError(
                f"dimension {shown!r} is not a positive integer; expected {SHAPE_HELP}"
            )
        dims.append(int(part) if len(part.strip()) <= 30 else MAX_DIM + 1)
    if any(d <= 0 for d in dims):
        raise ValueError(f"has a dimension ≤ 0 ({dims}); expected {SHAPE_HELP}")
    if any(d > MAX_DIM for d in dims):
        raise ValueError(f"has a dimension above {MAX_DIM}; expected {SHAPE_HELP}")
    if max_elements is not None and math.prod(dims) > max_elements:
        raise ValueError(
            f"has {math.prod(dims):.3g} elements, above the lab's limit; allowed: at most "
            f"{MAX_ELEMENTS:.3g} elements (2^34) in total, as {SHAPE_HELP}"
        )
    return tuple(dims)


def _squares(seed: int) -> str:
    return "512x512,1024x1024,2048x2048,3000x3000,4096x4096,512x512"


def _growing_batch(seed: int) -> str:
    return ",".join(f"{8 * i}x1024" for i in range(1, 11))


def _alternating(seed: int) -> str:
    return ",".join(["512x512,1024x1024"] * 4)


def _odd_sizes(seed: int) -> str:
    return "255x1024,257x1024,511x1024,513x1024,1023x1024,1025x1024"


def _random(seed: int) -> str:
    rng = random.Random(seed)
    return ",".join(f"{rng.randint(2, 256)}x512" for _ in range(8))


def _pow2_buckets(seed: int) -> str:
    return "16x1024,32x1024,64x1024,128x1024,256x1024,32x1024,64x1024"


def _dtype_change(seed: int) -> str:
    return "512x512,512x512,512x512:float16,512x512:bfloat16,512x512"


# name → (what it shows, generator of the sequence text from a seed)
PRESETS: dict[str, tuple[str, Callable[[int], str]]] = {
    "squares": ("growing squares, then back to the first (the issue's example)", _squares),
    "growing-batch": ("batch 8, 16, … 80 of 1024-wide rows: ten sizes", _growing_batch),
    "alternating": ("two sizes, alternating four times", _alternating),
    "odd-sizes": ("batch sizes just off powers of two", _odd_sizes),
    "random": ("eight random batch sizes from a seed (random:SEED)", _random),
    "pow2-buckets": ("powers of two only, as bucketing would produce", _pow2_buckets),
    "dtype-change": ("one shape, its dtype changing mid-sequence", _dtype_change),
}
Presets = dict[str, tuple[str, Callable[[int], str]]]


def _help(presets: Presets) -> str:
    random = "; random:SEED" if "random" in presets else ""
    return (
        f"up to {MAX_ENTRIES} shapes in call order, separated by commas, semicolons or new lines; "
        "each like 512x512, optionally with a dtype as in 512x512:float16 "
        f"({', '.join(DTYPES)}), or a preset name ({', '.join(presets)}{random})"
    )


HELP = _help(PRESETS)


def preset(name: str, seed: int = 0, presets: Presets | None = None) -> str:
    """The sequence text of a preset (of the lab's, or of the table given)."""
    return (PRESETS if presets is None else presets)[name][1](seed)


def _entry_dtype(text: str) -> str | None:
    name = text.strip().lower()
    name = DTYPE_ALIASES.get(name, name)
    if name not in DTYPES:
        raise ValueError(f"dtype {text.strip()!r} is not supported; allowed: {', '.join(DTYPES)}")
    return name


def _expand(item: str, presets: Presets) -> list[str] | None:
    """A preset reference (name or random:SEED) → its entries; None when it is not one."""
    name, _, arg = item.partition(":")
    name = name.strip().lower()
    if name not in presets:
        return None
    if arg and name != "random":
        raise ValueError(f"preset {item!r}: only random takes a seed (random:SEED)")
    if arg and not re.fullmatch(r"\s*[0-9]{1,9}\s*", arg):
        raise ValueError(f"preset {item!r}: the seed must be a whole number ≥ 0, as in random:7")
    return re.split(r"[,;\n]", preset(name, int(arg) if arg else 0, presets))


def parse_sequence(value: object, presets: Presets | None = None) -> list[Entry]:
    """Parse a sequence (text or list) into (shape, dtype-or-None) entries; ValueError says why.
    presets: the names it may use (a workload's, workloads/sequence.py); default the lab's."""
    presets = PRESETS if presets is None else presets
    allowed = HELP if presets is PRESETS else _help(presets)
    if isinstance(value, (list, tuple)):
        items = [str(v) for v in value]
    else:
        text = str(value if value is not None else "").strip()
        if len(text) > MAX_TEXT:
            raise ValueError(f"is {len(text)} characters long; allowed: {allowed}")
        items = re.split(r"[,;\n]", text)
    items = [i.strip() for i in items if i.strip()]
    if not items:
        raise ValueError(f"is empty; allowed: {allowed}")
    expanded: list[str] = []
    for item in items:
        found = _expand(item, presets) if item[:1].isalpha() else None
        expanded += found if found is not None else [item]
        if len(expanded) > MAX_ENTRIES:
            break
    if len(expanded) > MAX_ENTRIES:
        raise ValueError(f"has more than {MAX_ENTRIES} shapes; allowed: {allowed}")
    entries = []
    for number, item in enumerate(expanded, start=1):
        shape_text, _, dtype_text = item.partition(":")
        shown = item if len(item) <= 30 else item[:30] + "…"
        try:
            shape = parse_shape(shape_text)
            dtype = _entry_dtype(dtype_text) if dtype_text else None
        except ValueError as exc:
            text = str(exc).replace(SHAPE_HELP, ENTRY_HELP)
            if shape_text.strip()[:1].isalpha():  # a name: most likely a preset mistyped
                text = f"is not a preset ({', '.join(presets)}) nor a shape; expected {ENTRY_HELP}"
            raise ValueError(f"shape {number} ({shown!r}) {text}") from None
        entries.append((shape, dtype))
    return entries


def entry_text(shape: tuple[int, ...], dtype: str | None = None) -> str:
    text = "x".join(str(d) for d in shape)
    return f"{text}:{dtype}" if dtype else text


def canonical(value: object, presets: Presets | None = None) -> str:
    """The sequence as canonical text: presets expanded, dtypes spelled out, comma-joined."""
    return ",".join(entry_text(*e) for e in parse_sequence(value, presets))


def bucket(shape: tuple[int, ...], dims: tuple[int, ...], how: str, multiple: int) -> tuple:
    """The shape padded up on `dims` to a power of two ("pow2") or a multiple ("multiple")."""
    padded = list(shape)
    for d in dims:
        if d < len(padded):
            n = padded[d]
            padded[d] = (
                1 << (n - 1).bit_length() if how == "pow2" else math.ceil(n / multiple) * multiple
            )
    return tuple(padded)


# a dynamic batcher's lengths along a dim, as fractions of its size: off powers of two, unsorted,
# one repeated (a cache hit where the dim is dynamic), none of size 1 (0/1 specialization)
VARYING = (0.5, 0.3, 0.75, 1.0, 0.3, 0.125)


def growing(size: int) -> list[int]:
    """size/8, size/4, size/2, size (512 … 4096 for 4096); a dim under 8 doubles from size."""
    return [size >> k for k in (3, 2, 1, 0)] if size >= 8 else [size << k for k in range(4)]


def varying(size: int) -> list[int]:
    """Lengths a batcher would feed, around size (2048, 1229, 3072, 4096, 1229, 512 for 4096)."""
    if size < 8:
        return [size * k for k in (2, 3, 1, 4, 3, 1)]
    return [max(2, round(size * f)) for f in VARYING]


def _along(base: tuple[int, ...], axis: int, sizes: list[int]) -> str:
    return ",".join(entry_text((*base[:axis], n, *base[axis + 1 :])) for n in sizes)


def dim_presets(dims: tuple[str, ...], base: tuple[int, ...], order=None) -> Presets:
    """growing-DIM and varying-DIM for each named dim (in `order`, default dims' own): base with
    that dim alone changing, the others as they are in base."""
    found: Presets = {}
    for name in order or dims:
        axis, size = dims.index(name), base[dims.index(name)]
        others = " × ".join(f"{d} {base[i]}" for i, d in enumerate(dims) if i != axis)
        rest = f" ({others})" if others else ""
        grow, vary = growing(size), varying(size)
        found[f"growing-{name}"] = (
            f"{name} {grow[0]} → {grow[-1]}, doubling{rest}",
            lambda seed, a=axis, g=grow: _along(base, a, g),
        )
        found[f"varying-{name}"] = (
            f"{name} varying as a batcher feeds it: {', '.join(map(str, vary))}{rest}",
            lambda seed, a=axis, v=vary: _along(base, a, v),
        )
    return found
