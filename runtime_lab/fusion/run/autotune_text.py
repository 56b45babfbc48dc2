"""Inductor's printed autotune blocks, parsed: 'AUTOTUNE mm(…)', a line per choice, its seconds."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

# What select_algorithm.AlgorithmSelectorCache.log_results writes to stderr when max-autotune
# benchmarked an op (torch 2.11-2.13): a header, optional strides and dtypes lines, the fastest
# choices (config.autotune_num_choices_displayed, 10 by default), then the seconds it took.
HEADER = re.compile(r"^AUTOTUNE (?P<name>[\w.]+)\((?P<sizes>.*)\)\s*$")
CHOICE = re.compile(
    r"^\s+(?P<choice>\S+) (?P<ms>[-+0-9.eE]+|inf|nan) ms"
    r" (?:[0-9.]+%|<DIVIDED BY ZERO ERROR>)\s?(?P<config>.*?)\s*$"
)
TOOK = re.compile(
    r"^(?:SingleProcess|SubProcess) AUTOTUNE benchmarking takes (?P<s>[0-9.eE+-]+) seconds"
    r" and (?P<pre>[0-9.eE+-]+) seconds precompiling for (?P<n>\d+) choices"
)
# other backends' templates and Inductor's subgraph choices: neither Triton nor an ATen kernel
OTHER_PREFIXES = (
    "cpp_",
    "cutlass",
    "cuda_",
    "rocm_",
    "ck_",
    "cutedsl",
    "decompose_k",
    "contiguous",
)


@dataclass(frozen=True)
class Block:
    """One op's printed autotune block; `end` is its offset in the text, just past its last line."""

    name: str  # "mm"
    op: str  # "mm(4096x14336, 14336x4096)"
    choices: tuple[tuple[str, float | None, str], ...]  # (choice, ms or None if failed, config)
    autotune_s: float | None = None
    precompile_s: float | None = None
    count: int | None = None  # choices benchmarked (the block may print only the fastest)
    end: int = 0


def kind_of(choice: str) -> str:
    """A choice's kind from its name alone, where Inductor's objects are not at hand."""
    if choice.startswith("triton_"):
        return "triton"
    return "other" if choice.startswith(OTHER_PREFIXES) else "extern"


def _ms(text: str) -> float | None:
    value = float(text)
    return value if math.isfinite(value) else None


def _lines(text: str):
    """(line, offset just past it) of each line of text."""
    offset = 0
    for line in text.splitlines(keepends=True):
        offset += len(line)
        yield line.rstrip("\r\n"), offset


def parse(text: str) -> list[Block]:
    """Every autotune block in text (other lines ignored), in the order printed."""
    found: list[Block] = []
    current: dict | None = None

    def close() -> None:
        if current is not None:
            found.append(Block(**current))

    for line, end in _lines(text):
        if head := HEADER.match(line):
            close()
            name = head["name"]
            current = {"name": name, "op": f"{name}({head['sizes']})", "choices": (), "end": end}
        elif current is None:
            continue
        elif choice := CHOICE.match(line):
            row = (choice["choice"], _ms(choice["ms"]), choice["config"])
            current |= {"choices": (*current["choices"], row), "end": end}
        elif took := TOOK.match(line):
            seconds = {"autotune_s": float(took["s"]), "precompile_s": float(took["pre"])}
            current |= {**seconds, "count": int(took["n"]), "end": end}
            close()
            current = None
    close()
    return found
