"""`python -m runtime_lab compare ID ID [ID …] [--json PATH]`: the History page's compare view."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import TYPE_CHECKING, Any

from runtime_lab import config
from runtime_lab.cli import argcheck
from runtime_lab.compare.limits import MAX_RUNS, MIN_RUNS
from runtime_lab.view.text import terminal

if TYPE_CHECKING:  # imported where used: they import pandas, 0.3 s of every CLI start
    import pandas as pd

    from runtime_lab.compare import comparison as core
    from runtime_lab.compare import kernels as kd

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2  # as cli.py's: a usage error is 2


def add_parser(commands: Any) -> None:
    """The `compare` subcommand on cli.py's subparsers."""
    sub = commands.add_parser(
        "compare",
        help=f"compare {MIN_RUNS} to {MAX_RUNS} recorded runs of one experiment",
        description="Spec and environment differences, key figures with their ratio to the "
        "first run and a noise verdict, and a headline: what the History page's compare shows.",
    )
    sub.add_argument(
        "ids", nargs="+", metavar="ID", help="run ids (see `history`); first: baseline"
    )
    sub.add_argument(
        "--json", metavar="PATH", help="also write the comparison as JSON to PATH ('-' for stdout)"
    )


def main(args: argparse.Namespace) -> int:
    from runtime_lab.compare import comparison as core
    from runtime_lab.store.history import History, HistoryError  # sqlite only when it is used

    try:
        argcheck.data_dir(args.data_dir)
        if args.json is not None:
            argcheck.output_file("--json", args.json)
        ids = core.parse_ids(args.ids)
    except (argcheck.ArgError, core.CompareError) as exc:
        return _usage(str(exc))
    try:
        history = History(
            config.data_dir(args.data_dir, create=False) / "history.sqlite3", readonly=True
        )
        if history.notice:
            print(f"runtime_lab: warning: {terminal(history.notice)}", file=sys.stderr)
        runs = core.load(history.get, ids)
    except HistoryError as exc:
        print(f"runtime_lab: {terminal(exc)}", file=sys.stderr)
        return EXIT_FAILED
    except core.CompareError as exc:
        return _usage(str(exc))
    except Exception as exc:  # a stored row that does not read (a JSON column that is not JSON)
        return _unreadable(ids, exc)
    try:  # a stored run's values that don't compare: one line, not a traceback
        view = core.build(runs)
        shown, document = lines(view), to_json(view) if args.json else None
    except Exception as exc:
        return _unreadable(ids, exc)
    if args.json and not argcheck.write_json(args.json, json.dumps(document, indent=2) + "\n"):
        return EXIT_FAILED
    print("\n".join(shown))
    return EXIT_OK


def _unreadable(ids: list[int], exc: Exception) -> int:
    """A run imported before the bundle checks (or a row written by hand) whose values the
    comparison cannot use: said on one line, naming the runs and what failed."""
    what = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
    runs = ", ".join(f"#{i}" for i in ids)
    print(
        f"runtime_lab: error: cannot compare runs {runs}: a stored run's values do not read "
        f"({terminal(what)}); `delete ID` removes a run",
        file=sys.stderr,
    )
    return EXIT_FAILED


def _usage(message: str) -> int:
    print(f"runtime_lab: error: {terminal(message)}", file=sys.stderr)
    return EXIT_USAGE


def table_lines(frame: pd.DataFrame, indent: str = "  ") -> list[str]:
    """A frame as left-aligned text columns, header first; a cell's control characters (a
    host name's newline or ESC) escaped, so each row is one line."""
    header = [terminal(c) for c in frame.columns]
    cells = [header] + [[terminal(v) for v in row] for row in frame.values]
    widths = [max(len(row[i]) for row in cells) for i in range(len(frame.columns))]
    padded = [[c.ljust(w) for c, w in zip(row, widths, strict=True)] for row in cells]
    return [(indent + "  ".join(row)).rstrip() for row in padded]


def lines(view: core.Comparison) -> list[str]:
    """What the CLI prints: a warning when the workloads differ, the differences, then key
    figures, then the headline."""
    base, experiment = terminal(view.labels[0]), terminal(view.experiment)
    out = [f"Comparing {experiment} runs {terminal(', '.join(view.labels))} (baseline {base})"]
    if view.workloads:  # at the top: the figures below compare different functions
        out.append(f"WARNING: {terminal(view.workloads)}")
    out.append("")
    out.append("Spec and environment, the fields that differ:")
    diffs = table_lines(view.differences) if not view.differences.empty else ["  none"]
    out += [*diffs, ""]
    out.append(f"Key figures (ratio to {base}; within noise: the runs' IQRs overlap):")
    out += table_lines(view.table) if not view.table.empty else ["  none"]
    out += [f"  {terminal(note)}" for note in view.notes]
    for found in view.kernel_diffs:
        out += ["", *kernel_lines(found)]
    return [*out, "", terminal(view.headline)]


def kernel_lines(found: kd.KernelDiff) -> list[str]:
    """A kernel diff: the spec fields that differ above it, then one line per match or kernel
    only one run ran."""
    from runtime_lab.compare import kernels as kd

    out = [f"Kernel diff, {terminal(found.a)} → {terminal(found.b)}: {terminal(kd.summary(found))}"]
    out += [f"  {terminal(f)}: {terminal(x)} → {terminal(y)}" for f, x, y in found.fields]
    table = kd.frame(found)
    return out + (table_lines(kd.readable(table)) if not table.empty else ["  no kernels recorded"])


def to_json(view: core.Comparison) -> dict[str, Any]:
    """The comparison as JSON-ready data: the long-form figures, not the formatted table."""
    from runtime_lab.compare import kernels as kd

    records = view.figures.to_dict(orient="records")
    figures = [{k: _plain(v) for k, v in r.items()} for r in records]
    return {
        "experiment": view.experiment,
        "runs": list(view.labels),
        "baseline": view.labels[0],
        "headline": view.headline,
        "workloads": view.workloads,
        "differences": view.differences.to_dict(orient="records"),
        "figures": figures,
        "notes": list(view.notes),
        # the baseline against each other run; null where the experiment lists no kernels
        "kernel_diff": [kd.to_json(d) for d in view.kernel_diffs] or None,
    }


def _plain(value: Any) -> Any:
    """NaN (a figure one run lacks) as null; numpy scalars as Python numbers."""
    if hasattr(value, "item"):
        value = value.item()
    return None if isinstance(value, float) and math.isnan(value) else value
