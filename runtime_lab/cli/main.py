"""Command line: `python -m runtime_lab run <experiment> ...`, `env`, `history`, on the pages' path."""

from __future__ import annotations

import argparse
import json
import sys

from runtime_lab import __version__, registry
from runtime_lab.cli import argcheck
from runtime_lab.cli.progress import doubt_line, wait_with_progress
from runtime_lab.cli.workloads import use_files
from runtime_lab.config import DataDirError
from runtime_lab.registry import EXPERIMENTS
from runtime_lab.shapes import DTYPES
from runtime_lab.spec import SpecError, build_spec
from runtime_lab.view.code import code_line
from runtime_lab.view.origin import imported_from
from runtime_lab.view.text import terminal
from runtime_lab.workloads.option import FILES_HELP

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message: str) -> None:
        print(f"runtime_lab: error: {terminal(message)} (see --help)", file=sys.stderr)
        sys.exit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m runtime_lab", description="Runtime Lab from the command line.")
    parser.add_argument("--version", action="version", version=__version__)
    parser.add_argument(
        "--data-dir",
        help="where history and compile caches live (default $RUNTIME_LAB_DATA_DIR, else "
        ".runtime_lab); created if only its parent exists",
    )
    parser.add_argument(
        "--ray-address",
        metavar="ADDRESS",
        help="run GPU jobs on a Ray cluster: auto, ray://host:10001, HOST:PORT, or local (starts "
        "one on this host for the command); CPU jobs stay on this host's CPU worker; default "
        "$RUNTIME_LAB_RAY_ADDRESS, else this host's own workers",
    )
    parser.add_argument("--workloads", metavar="PATH[,PATH...]", help=FILES_HELP)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    commands.add_parser("env", help="print this machine's environment fingerprint as JSON")
    commands.add_parser(
        "workers", help="list the workers a run can go to (this host's, or the Ray cluster's)"
    )
    hist = commands.add_parser("history", help="list recorded runs, newest first")
    hist.add_argument(
        "--experiment", choices=tuple(EXPERIMENTS), help="only this experiment's runs"
    )
    low, high = argcheck.LIMIT_RANGE
    hist.add_argument("--limit", default="20", help=f"rows to list ({low} to {high})")
    # export and import, and runs side by side: their own modules, torch-free
    from runtime_lab.cli import bundles, compare, delete, figures, suggest, workloads

    bundles.add_parsers(commands)
    compare.add_parser(commands)
    delete.add_parser(commands)
    workloads.add_parser(commands)
    figures.add_parser(commands)
    run = commands.add_parser("run", help="run one experiment in the worker and print its result")
    experiments = run.add_subparsers(dest="experiment", required=True, parser_class=_Parser)
    for info in EXPERIMENTS.values():
        sub = experiments.add_parser(info.name, help=info.summary, description=info.summary)
        sequence = any(o.kind == "shapes" for o in info.options.values())
        workload = any(o.kind == "workload" for o in info.options.values())
        _common_args(sub, info.default_shape, sequence, workload)
        for name, option in info.options.items():
            allowed = f" ({', '.join(option.choices)})" if option.choices else ""
            sub.add_argument(
                f"--{name.replace('_', '-')}",
                dest=f"opt_{name}",
                metavar=name.upper(),
                help=option.help + allowed,
            )
        suggest.add_argument(sub, info.name)
    return parser


def _common_args(
    sub: argparse.ArgumentParser, default_shape: str, sequence: bool, workload: bool = False
) -> None:
    # numbers stay strings here so RunSpec validation gives every field the same message style
    shape_help = "1 to 4 dims: 4096x4096, 4096,4096 or '4096 4096'"
    if sequence:
        shape_help = "ignored: --shapes is what runs (the run records its first shape)"
    if workload and not sequence:  # with a sequence, each entry is one number per dim
        shape_help = (
            "one number per dim of the workload (see `workloads`), e.g. 4096x4096, or a preset's "
            "name (llama3-8b-4k); default: the workload's own"
        )
    sub.add_argument("--shape", default=None if workload else default_shape, help=shape_help)
    dtype_help = f"one of {', '.join(DTYPES)}"
    if sequence:
        dtype_help += "; for the shapes without their own :dtype"
    sub.add_argument("--dtype", default="float32", help=dtype_help)
    sub.add_argument("--device", default="auto", help="auto, cpu, cuda or cuda:N")
    sub.add_argument("--warmup", default="10", help="warm-up calls before timing (0 to 1000)")
    sub.add_argument("--repeat", default="50", help="timed calls (1 to 10000)")
    sub.add_argument(
        "--no-l2-flush", action="store_true", help="don't flush the L2 cache between calls"
    )
    sub.add_argument("--seed", default="0", help="random seed for the inputs")
    sub.add_argument(
        "--on",
        metavar="WORKER",
        help="the worker to run on, by name (see `workers`); default: by --device",
    )
    low, high = argcheck.TIMEOUT_RANGE
    sub.add_argument(
        "--timeout", help=f"seconds before the job is killed ({low:g} to {high:g}; default 600)"
    )
    sub.add_argument(
        "--json", metavar="PATH", help="write the run as JSON to PATH ('-' for stdout)"
    )


def _spec_from(args: argparse.Namespace):
    options = {
        key[4:]: value
        for key, value in vars(args).items()
        if key.startswith("opt_") and value is not None
    }
    return build_spec(
        args.experiment,
        args.shape,
        dtype=args.dtype,
        device=args.device,
        warmup=args.warmup,
        repeat=args.repeat,
        l2_flush=not args.no_l2_flush,
        seed=args.seed,
        options=options,
    )


def _run(args: argparse.Namespace) -> int:
    from runtime_lab.cli import suggest

    plan = None
    try:
        if getattr(args, "apply_suggestion", None) is not None:
            plan = suggest.plan(args)
            spec = plan.spec
        else:
            spec = _spec_from(args)
    except SpecError as exc:
        print(f"runtime_lab: invalid input: {terminal(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except suggest.SuggestError as exc:
        print(f"runtime_lab: error: {terminal(exc)}", file=sys.stderr)
        return EXIT_USAGE
    jobs = _manager(args)
    if jobs is None:
        return EXIT_USAGE
    if jobs.history_notice:
        print(f"runtime_lab: warning: {terminal(jobs.history_notice)}", file=sys.stderr)
    try:
        job_id = jobs.submit(spec, target=args.on)
        job = wait_with_progress(jobs, job_id)
    finally:
        jobs.close()
    if job.state == "refused":
        print(f"runtime_lab: refused: {terminal(job.error)}", file=sys.stderr)
        return EXIT_USAGE
    run = job.as_run()
    result = registry.load(run)  # rebuilt once, for the summary and the report
    document = run.document()
    figures = registry.summary(run, result=result)
    if figures is not None:
        document["summary"] = figures
    if plan is not None:
        document["apply_suggestion"] = suggest.document(plan, run)
    written = True
    if args.json:
        written = argcheck.write_json(args.json, json.dumps(document, indent=2, default=str) + "\n")
    rep = registry.build_report(run, result=result)
    # the report quotes the worker and the spec: escaped, with a note's own lines kept
    print(terminal(rep.headline) + (f" (run #{job.run_id})" if job.run_id else ""))
    if line := doubt_line(rep):  # as the early headline said it, with every figure in now
        print(line)
    if line := code_line(run):
        print(f"  {terminal(line)}")
    for metric in rep.metrics:
        print(f"  {terminal(metric.label)}: {terminal(metric.value)}")
    for warning in rep.warnings:
        print(f"  warning: {terminal(warning, lines=True)}")
    for note in rep.notes:
        print(f"  {terminal(note, lines=True)}")
    if plan is not None:
        print("\n".join(terminal(line) for line in suggest.lines(plan, run)))
    from runtime_lab.view import stages  # here: it imports pandas and altair (0.7 s a start)

    if line := stages.time_line(run):  # where the job's seconds went in its worker
        print(f"  time: {terminal(line)}")
    return EXIT_OK if job.state == "done" and written else EXIT_FAILED


def _manager(args: argparse.Namespace):
    """The manager for one CLI command: no spare, and only the worker of the lane a job goes
    to starts. None (said on stderr) when the Ray cluster asked for can't be used."""
    from runtime_lab.runner.devices import RayUnavailable
    from runtime_lab.runner.jobs import JobManager

    try:
        return JobManager(
            data_dir=args.data_dir,
            timeout_s=getattr(args, "timeout", None),
            spare=False,
            lazy=True,
            ray_address=args.ray_address,
        )
    except RayUnavailable as exc:  # ray missing or the cluster out of reach
        print(f"runtime_lab: {terminal(exc)}", file=sys.stderr)
        return None


def _workers(args: argparse.Namespace) -> int:
    jobs = _manager(args)
    if jobs is None:
        return EXIT_USAGE
    try:
        for lane in jobs.lanes:
            if lane.plan.kind == "gpu" and lane.plan.local:
                lane.ensure_worker()  # its GPU's name comes from the worker that sees it
        status = jobs.status()
    finally:
        jobs.close()
    if status["devices_note"]:
        print(f"runtime_lab: warning: {terminal(status['devices_note'])}", file=sys.stderr)
    for lane in status["lanes"]:  # a Ray node's host and device names are its own to say
        name, kind, device = (terminal(lane[k]) for k in ("lane", "kind", "device_type"))
        where = terminal(lane["host"]) if lane["node"] else "this host"
        print(f"{name:<24} {kind:<4} {device or '-':<20} {where}")
    return EXIT_OK


def _history(args: argparse.Namespace) -> int:
    from runtime_lab import config, record
    from runtime_lab.store.history import History, HistoryError

    try:
        history = History(
            config.data_dir(args.data_dir, create=False) / "history.sqlite3", readonly=True
        )
        if history.notice:
            print(f"runtime_lab: warning: {terminal(history.notice)}", file=sys.stderr)
        rows = history.list(args.experiment, limit=args.limit)
    except HistoryError as exc:
        print(f"runtime_lab: {terminal(exc)}", file=sys.stderr)
        return EXIT_FAILED
    if not rows:  # say so: an empty answer looks like a broken command
        which = f" of {args.experiment}" if args.experiment else ""
        where = config.data_dir(args.data_dir, create=False)
        print(f"runtime_lab: no runs{which} recorded in {terminal(where)}", file=sys.stderr)
    for row in rows:
        stamp = record.when(row["created_at"])  # a stored NaN or Infinity: said, not raised
        # one line per run whatever its label holds: a newline or ESC in it is escaped
        origin = imported_from(row.get("origin"))
        marked = f"  [{terminal(origin)}]" if origin else ""
        status, label = terminal(row["status"]), terminal(row["label"])
        print(f"#{row['id']:<5} {stamp}  {status:<9} {label}{marked}")
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:  # paths, numbers, RUNTIME_LAB_* values: before any worker starts or history opens
        argcheck.check(args)
        use_files(args)  # --workloads: registered before a spec names one of them
        return _command(args)
    except (argcheck.ArgError, DataDirError) as exc:  # it quotes what was typed
        print(f"runtime_lab: error: {terminal(exc)}", file=sys.stderr)
        return EXIT_USAGE


def _command(args: argparse.Namespace) -> int:
    if args.command == "env":
        from runtime_lab.env import fingerprint

        print(json.dumps(fingerprint(), indent=2))
        return EXIT_OK
    if args.command == "history":
        return _history(args)
    if args.command == "workers":
        return _workers(args)
    if args.command in ("export", "import"):
        from runtime_lab.cli import bundles

        return bundles.main(args)
    if args.command == "compare":
        from runtime_lab.cli import compare

        return compare.main(args)
    if args.command == "delete":
        from runtime_lab.cli import delete

        return delete.main(args)
    if args.command == "workloads":
        from runtime_lab.cli import workloads

        return workloads.main(args)
    if args.command == "figures":
        from runtime_lab.cli import figures

        return figures.main(args)
    return _run(args)
