"""`python -m runtime_lab figures [--experiment NAME] [--json [FILE]]`: the glossary of figures."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from typing import Any

from runtime_lab import registry
from runtime_lab.cli import argcheck
from runtime_lab.glossary import registry as glossary
from runtime_lab.glossary.figure import Figure
from runtime_lab.view.text import terminal

COLUMNS = ("experiment", "key", "label", "unit", "better")  # the table; JSON has every field


def add_parser(commands: Any) -> None:
    sub = commands.add_parser(
        "figures",
        help="list every figure the reports, compare and the JSON show: key, label, unit, "
        "which way is better",
        description="The glossary of figures: each key of a run's `summary` (a `*` stands for "
        "a mode or another name), its label, unit, which way is better, how it is measured and "
        "when not to trust it (docs/measurement.md#the-figures).",
    )
    sub.add_argument("--experiment", choices=registry.NAMES, help="only this experiment's figures")
    sub.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="FILE",
        help="the glossary as JSON, a list of objects, to FILE (default: stdout)",
    )


def record(figure: Figure) -> dict[str, str]:
    """One figure as the JSON lists it: experiment, key, label, unit, better, how, trust."""
    return dataclasses.asdict(figure)


def table_lines(figures: tuple[Figure, ...]) -> list[str]:
    """The figures as left-aligned columns, header first."""
    rows = [list(COLUMNS)] + [[terminal(getattr(f, c)) for c in COLUMNS] for f in figures]
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    return [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
    ]


def main(args: argparse.Namespace) -> int:
    try:
        if args.json is not None:
            argcheck.output_file("--json", args.json)
    except argcheck.ArgError as exc:
        print(f"runtime_lab: error: {terminal(exc)}", file=sys.stderr)
        return 2
    figures = glossary.figures(args.experiment)
    if args.json is None:
        print("\n".join(table_lines(figures)))
        return 0
    text = json.dumps([record(f) for f in figures], indent=2, ensure_ascii=False) + "\n"
    return 0 if argcheck.write_json(args.json, text) else 1
