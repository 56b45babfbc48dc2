"""The CLI's `export` and `import`: recorded runs to one bundle file and back (bundle.py)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from runtime_lab.view.text import terminal

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def add_parsers(commands: argparse._SubParsersAction) -> None:
    out = commands.add_parser(
        "export", help="write recorded runs and their traces to one .json.gz bundle"
    )
    out.add_argument("ids", nargs="+", metavar="ID", help="run ids, as `history` lists them")
    out.add_argument(
        "--out", required=True, metavar="FILE.json.gz", help="the bundle to write (replaced)"
    )
    into = commands.add_parser(
        "import", help="add a bundle's runs to history as new runs, marked imported"
    )
    into.add_argument("file", metavar="FILE", help="a bundle written by `export`")


def main(args: argparse.Namespace) -> int:
    """Exit 2 with one line for a bad bundle or an unknown run; 1 for a history or disk error."""
    from runtime_lab import config
    from runtime_lab.store import bundle
    from runtime_lab.store.history import History, HistoryError

    root = config.data_dir(args.data_dir)
    try:
        history = History(root / "history.sqlite3", readonly=args.command == "export")
        if history.notice:
            print(f"runtime_lab: warning: {terminal(history.notice)}", file=sys.stderr)
        if args.command == "export":
            return _export(args, history, root)
        return _import(args, history, root)
    except bundle.BundleError as exc:
        if args.command == "export":
            doing, kept = f"export to {args.out}", "no bundle was written"
        else:
            doing, kept = f"import {args.file}", "nothing was imported"
        # the message quotes the bundle (a label, a host): escaped, as every stored string
        print(
            f"runtime_lab: error: cannot {terminal(doing)}: {terminal(exc)}; {kept}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    except (HistoryError, OSError) as exc:
        print(f"runtime_lab: error: {terminal(exc)}", file=sys.stderr)
        return EXIT_FAILED


def _export(args: argparse.Namespace, history, root: Path) -> int:
    from runtime_lab.store import bundle

    data = bundle.export_runs(history, args.ids, root)
    _write(Path(args.out).expanduser(), data)
    for run_id in dict.fromkeys(args.ids):
        run = history.get(run_id)
        label = terminal(run.label if run else None)
        print(f"exported run #{run_id} ({label}) to {terminal(args.out)}")
    return EXIT_OK


def _write(path: Path, data: bytes) -> None:
    """Beside the target, then renamed over it: a full disk never leaves half a bundle."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        partial.write_bytes(data)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def _import(args: argparse.Namespace, history, root: Path) -> int:
    from runtime_lab.store import bundle

    for run_id in bundle.import_file(Path(args.file).expanduser(), history, root):
        run = history.get(run_id)  # None only if deleted meanwhile
        origin = (run.origin if run else None) or {}
        where = ", ".join(
            str(x) for x in (origin.get("origin_host"), origin.get("origin_gpu")) if x
        )
        where = bundle.one_line(where or "an unnamed host")
        label = run.label if run else None
        print(f"imported run #{run_id} ({terminal(bundle.one_line(label))}) from {terminal(where)}")
    return EXIT_OK
