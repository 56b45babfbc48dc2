"""`python -m runtime_lab workloads [--json]`: the workload catalog (name, dims, presets, bound)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from runtime_lab.view.text import terminal
from runtime_lab.workloads.declare import WorkloadInfo, shape_text
from runtime_lab.workloads.describe import from_environment
from runtime_lab.workloads.plain import to_plain
from runtime_lab.workloads.registry import WORKLOADS


def add_parser(commands: Any) -> None:
    sub = commands.add_parser(
        "workloads",
        help="list the workloads every experiment can run (name, dims, presets, bound)",
        description="The workload catalog: pass a name to `run fusion --workload NAME`.",
    )
    sub.add_argument("--json", action="store_true", help="the whole catalog as JSON")


def _line(work: WorkloadInfo) -> str:
    params = ", ".join(f"{k}={v}" for k, v in work.params)
    presets = ", ".join(p.name for p in work.presets) or "none"
    lines = [
        f"{work.name}  ({work.bound}-bound, {work.origin})  {work.title}",
        f"    dims: {work.dims_text}   default {shape_text(work.default_shape)}, "
        f"CPU {shape_text(work.cpu_shape)}" + (f"   params: {params}" if params else ""),
        f"    presets: {presets}",
    ]
    return "\n".join(terminal(line) for line in lines)


def main(args: argparse.Namespace) -> int:
    if args.json:
        print(json.dumps([to_plain(w) for w in WORKLOADS.values()], indent=2))
    else:
        print("\n".join(_line(w) for w in WORKLOADS.values()))
    return 0


def use_files(args: argparse.Namespace) -> None:
    """--workloads (else $RUNTIME_LAB_WORKLOADS): read by the describe child, registered here
    torch-free, and handed to the workers through the environment (they import the files).
    A file that did not load is one line on stderr; the others and the built-ins still run."""
    if args.command not in ("run", "workloads"):
        return
    for line in from_environment(args.workloads).problems:
        print(f"runtime_lab: workload file: {terminal(line)}", file=sys.stderr)
