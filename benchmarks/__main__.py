"""`python -m benchmarks <recipe> [--device auto|cpu|cuda] [--out DIR] [--set NAME=VALUE]`, `--list`."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.recipe import Recipe, SettingError
from benchmarks.recipes import RECIPES
from runtime_lab import config
from runtime_lab.spec import SpecError

EXIT_OK, EXIT_PROBLEM, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message: str) -> None:
        print(f"benchmarks: error: {message} (see --help)", file=sys.stderr)
        sys.exit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m benchmarks",
        description="Recurring measurements, each run through the lab's queue and workers.",
    )
    parser.add_argument("recipe", nargs="?", help="what to measure (see --list)")
    parser.add_argument("--list", action="store_true", help="list the recipes and their settings")
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    parser.add_argument(
        "--out",
        help="write the figures as JSON to DIR/<recipe>.json (DIR or its parent must exist)",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a recipe setting (see --list); repeat for several",
    )
    return parser


def listing() -> str:
    lines = []
    for recipe in RECIPES.values():
        lines.append(f"{recipe.name:<14} [{'/'.join(recipe.devices)}] {recipe.summary}")
        for name, setting in recipe.settings.items():
            lines.append(f"    --set {name}={setting.default}  {setting.help}")
    return "\n".join(lines)


def resolve_device(recipe: Recipe, asked: str) -> tuple[str | None, str]:
    """The device the recipe runs on, or None and the one line that says why it cannot."""
    from runtime_lab.runner.devices import count_gpus  # counts in a child: no torch here

    if asked != "auto" and asked not in recipe.devices:
        return None, f"{recipe.name} runs on {' or '.join(recipe.devices)} only, not {asked}"
    gpus = count_gpus()[0] if "cuda" in recipe.devices and asked != "cpu" else 0
    device = (
        asked if asked != "auto" else ("cuda" if gpus or "cpu" not in recipe.devices else "cpu")
    )
    if device == "cuda" and not gpus:
        return None, f"{recipe.name} needs CUDA, and this machine has no GPU"
    return device, ""


def document(recipe: Recipe, bench: Any, settings: dict, figures: dict, wall_s: float) -> dict:
    """The JSON written to --out: the figures with the settings and the machine they came from."""
    return {
        "recipe": recipe.name,
        "device": bench.device,
        "settings": settings,
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "wall_s": round(wall_s, 3),
        "figures": figures,
        "problems": bench.problems,
        "notes": bench.notes,
        "tables": bench.tables,
        "runs": [finished.headline() for finished in bench.finished],
        "env": bench.fingerprint(),
    }


def measure(recipe: Recipe, device: str, given: dict[str, str], out: Path | None) -> int:
    from benchmarks.harness import Bench  # the lab's runner: only when a recipe runs

    settings = recipe.read(given)
    started = time.perf_counter()
    with Bench(device) as bench:
        figures = recipe.measure(bench, settings)
        wall_s = time.perf_counter() - started
        print(f"{recipe.name} on {device}: {wall_s:.1f} s", flush=True)
        if out is not None:
            doc = document(recipe, bench, settings.as_dict(), figures, wall_s)
            if not write(out / f"{recipe.name}.json", json.dumps(doc, indent=1, default=str)):
                return EXIT_PROBLEM
        return EXIT_PROBLEM if bench.problems else EXIT_OK


def out_problem(recipe: Recipe, out: Path) -> str | None:
    """--out DIR, checked before anything is measured: a writable directory, or a missing one
    whose parent is one (only that last folder is ever created, never a tree above it)."""
    if reason := config.dir_problem(out):
        return f"--out {out}: {reason}"
    target = out / f"{recipe.name}.json"
    if target.is_dir() or (target.exists() and not os.access(target, os.W_OK)):
        return f"--out {out}: {target.name} there is a directory or not writable"
    return None


def write(path: Path, text: str) -> bool:
    """The figures' JSON (its folder made if missing, one level only); False, said in one line,
    when the disk refuses it after all (full, removed meanwhile)."""
    try:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text + "\n")
    except OSError as exc:
        print(f"benchmarks: could not write {path}: {exc.strerror or exc}", file=sys.stderr)
        return False
    print(f"wrote {path}")
    return True


def _stop(signum: int, frame: Any) -> None:
    """SIGTERM or SIGHUP (a timeout, a closed terminal): unwind, so the temporary lab, its
    workers and its folder go, as they do on Ctrl-C and on a normal end."""
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.list:
        print(listing())
        return EXIT_OK
    if args.recipe not in RECIPES:
        known = ", ".join(RECIPES)
        print(f"benchmarks: error: name a recipe ({known}) or --list", file=sys.stderr)
        return EXIT_USAGE
    recipe = RECIPES[args.recipe]
    bad = [item for item in args.set if "=" not in item]
    if bad:
        print(f"benchmarks: error: --set {bad[0]}: say NAME=VALUE", file=sys.stderr)
        return EXIT_USAGE
    given = dict(item.partition("=")[::2] for item in args.set)
    try:
        recipe.read(given)  # a bad setting is said before any worker starts
        device, why = resolve_device(recipe, args.device)
    except SettingError as exc:
        print(f"benchmarks: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if device is None:
        print(f"benchmarks: {why}", file=sys.stderr)
        return EXIT_USAGE
    out = Path(args.out).expanduser() if args.out else None
    problem = "--out is empty; expected a directory" if args.out == "" else None
    if problem or (out is not None and (problem := out_problem(recipe, out))):
        print(f"benchmarks: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _stop)
    try:
        return measure(recipe, device, given, out)
    except (SettingError, SpecError) as exc:  # a spec the settings make, refused by the lab
        print(f"benchmarks: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("benchmarks: interrupted; the temporary lab was removed", file=sys.stderr)
        return 128 + signal.SIGINT


if __name__ == "__main__":
    sys.exit(main())
