"""`python -m benchmarks <recipe> [--device auto|cpu|cuda] [--out DIR] [--set NAME=VALUE]`, `--list`."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.recipe import Recipe, SettingError
from benchmarks.recipes import RECIPES

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
    parser.add_argument("--out", type=Path, help="write the figures as JSON to DIR/<recipe>.json")
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
            out.mkdir(parents=True, exist_ok=True)
            path = out / f"{recipe.name}.json"
            text = json.dumps(
                document(recipe, bench, settings.as_dict(), figures, wall_s), indent=1, default=str
            )
            path.write_text(text + "\n")
            print(f"wrote {path}")
        return EXIT_PROBLEM if bench.problems else EXIT_OK


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
    try:
        return measure(recipe, device, given, args.out)
    except SettingError as exc:  # a value of the wrong kind, found where the recipe reads it
        print(f"benchmarks: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
