"""Two to six runs of one experiment side by side: what differs, key figures with noise, a headline."""

from __future__ import annotations

import dataclasses
import fnmatch
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from runtime_lab import registry
from runtime_lab.compare import kernels as kd
from runtime_lab.compare import labels as labels_
from runtime_lab.compare import moved as moving
from runtime_lab.compare import table as compare_table
from runtime_lab.compare import workloads
from runtime_lab.compare.limits import MAX_RUNS, MIN_RUNS
from runtime_lab.glossary import registry as glossary
from runtime_lab.glossary.ratio import words as ratio_words
from runtime_lab.record import Run
from runtime_lab.results import stats
from runtime_lab.view import frames
from runtime_lab.view.origin import imported, imported_from

MIN_SAMPLES = 3  # fewer samples give no quartiles worth comparing
BASELINE, WITHIN, BEYOND = "baseline", "within noise", "beyond noise"
NO_SPREAD, MISSING = "no spread recorded", "not in both runs"
_ID = re.compile(r"[0-9]{1,12}")  # ASCII digits only: int() also takes other scripts' digits
NAMED_FIELDS = 4  # the headline names this many differing fields, then counts the rest
FIGURE_COLUMNS = ["key", "figure", "unit", "better", "run", "value", "q1", "q3", "samples"]
FIGURE_COLUMNS += ["ratio", "verdict"]  # against the baseline, the first run


class CompareError(ValueError):
    """Why these runs can't be compared, as one line a page or the CLI shows as it is."""


def parse_ids(given: str | Iterable[str]) -> list[int]:
    """'12,15' (a query parameter) or ['12', '15'] (CLI words) → [12, 15], order kept,
    repeats dropped; checks the count."""
    words = [given] if isinstance(given, str) else list(given)
    parts = [p.strip() for w in words for p in str(w).split(",") if p.strip()]
    bad = [p for p in parts if not _ID.fullmatch(p)]
    if bad:
        shown = ", ".join(repr(b[:20]) for b in bad[:3])
        raise CompareError(f"run ids are whole numbers like 12,15; got {shown}")
    ids = list(dict.fromkeys(int(p) for p in parts))
    _check_count(len(ids))
    return ids


def _check_count(n: int) -> None:
    if n < MIN_RUNS:
        raise CompareError(f"pick at least {MIN_RUNS} different runs to compare (got {n})")
    if n > MAX_RUNS:
        raise CompareError(f"compare at most {MAX_RUNS} runs at once (got {n})")


def load(get: Callable[[int], Run | None], ids: Sequence[int]) -> list[Run]:
    """The runs by id from history (`get`), checked: all there, 2 to 6, one experiment."""
    runs = [get(i) for i in ids]
    missing = [f"#{i}" for i, run in zip(ids, runs, strict=True) if run is None]
    if missing:
        raise CompareError(f"no run {', '.join(missing)} in history")
    check(runs)
    return runs


def check(runs: Sequence[Run]) -> None:
    """Raise CompareError unless 2 to 6 different runs of one experiment."""
    check_choice([(r.id, r.spec["experiment"]) for r in runs])


def check_choice(picked: Sequence[tuple[Any, str]]) -> None:
    """The same check on (run id, experiment) pairs, as a picker has them before loading."""
    _check_count(len(picked))
    if len({run_id for run_id, _ in picked}) < len(picked):
        raise CompareError("the same run is listed twice")
    if len({experiment for _, experiment in picked}) > 1:
        kinds = ", ".join(f"#{run_id} is {experiment}" for run_id, experiment in picked)
        raise CompareError(f"compare runs of one experiment only ({kinds})")


def label(run: Run) -> str:
    return f"#{run.id}"


def _gpu(env: dict[str, Any]) -> str:
    gpus = env.get("gpus") or []
    if not gpus:
        return "CPU" if env else "—"
    return gpus[0]["name"] + (f" ×{len(gpus)}" if len(gpus) > 1 else "")


# the fingerprint fields that change a figure (runtime_lab/env.py fingerprint() keys)
ENV_FIELDS: tuple[tuple[str, Callable[[dict[str, Any]], Any]], ...] = (
    ("GPU", _gpu),
    ("torch", lambda e: e.get("torch")),
    ("CUDA", lambda e: e.get("cuda_runtime")),
    ("driver", lambda e: e.get("driver")),
    ("triton", lambda e: e.get("triton")),
    ("python", lambda e: e.get("python")),
    ("host", lambda e: e.get("hostname")),
    ("CPU", lambda e: e.get("host_cpu")),
    ("torch threads", lambda e: e.get("torch_threads")),
    ("worker", lambda e: e.get("lane")),  # the pool's lane: cuda:1, cpu, ray:host/gpu:0
)


def _alongside(run: Run) -> str | None:
    """Whether the run shared its host with another worker's job (None: stored before)."""
    worker = run.worker or {}
    if "alongside" not in worker:
        return None
    count = len(worker["alongside"])
    return f"{count} other worker's job(s)" if count else "alone"


def _fields(run: Run) -> list[tuple[str, str, str]]:
    env = run.env or {}
    rows = [("environment", name, read(env)) for name, read in ENV_FIELDS]
    rows.append(("environment", "ran alongside", _alongside(run)))
    rows.append(("environment", "recorded", imported_from(run.origin) or "here"))
    spec = frames.spec_frame(workloads.normalised(run.spec))  # old option names read as today's
    rows += [("spec", f, v) for f, v in zip(spec["field"], spec["value"], strict=True)]
    return [(s, f, "—" if v is None else str(v)) for s, f, v in rows]


def differences(runs: Sequence[Run]) -> pd.DataFrame:
    """Environment and spec fields whose values are not the same in every run, one column per
    run (the first is the baseline); a field a run lacks reads "—"."""
    labels = [label(r) for r in runs]
    values: dict[tuple[str, str], dict[str, str]] = {}
    for name, run in zip(labels, runs, strict=True):
        for section, field, value in _fields(run):
            values.setdefault((section, field), {})[name] = value
    rows = [
        {"section": section, "field": field, **{n: seen.get(n, "—") for n in labels}}
        for (section, field), seen in values.items()
        if len({seen.get(n, "—") for n in labels}) > 1
    ]
    return pd.DataFrame(rows, columns=["section", "field", *labels])


@dataclass(frozen=True)
class _Measure:
    value: float | None
    q1: float | None = None
    q3: float | None = None
    samples: int = 0


def _measure(value: float | None, samples: Sequence[float] | None) -> _Measure:
    """A figure with spread: median and quartiles from its raw samples; else the figure alone."""
    s = stats(samples or ())
    if s is None or s.count < MIN_SAMPLES:
        return _Measure(value)
    return _Measure(s.median, s.q1, s.q3, s.count)


def _ratio(value: float | None, base: float | None) -> float | None:
    if value is None or base is None:
        return None
    if base == 0:
        return 1.0 if value == 0 else None  # 0 against 0 is no change; n against 0 no ratio
    return value / base


def verdict(m: _Measure, base: _Measure) -> str:
    """Beyond noise only when both runs recorded spread and their IQRs don't overlap."""
    if m.value is None or base.value is None:
        return MISSING
    if not (m.samples and base.samples):
        return NO_SPREAD
    return WITHIN if max(m.q1, base.q1) <= min(m.q3, base.q3) else BEYOND


def _measured(run: Run, result: Any, stage: Any) -> dict[str, _Measure]:
    """A run's key figures by path, each with its raw samples' spread where it has them;
    `result` is registry.load(run)'s."""
    values = compare_table.flatten(registry.summary(run, result=result))
    samples = stage.samples(result) if result is not None else {}
    spreads = getattr(stage, "spreads", None)  # figures derived from two sampled ones (a ratio)
    derived = spreads(result) if spreads and result is not None else {}
    found = {}
    for key, value in values.items():
        if _ignored(key, stage.IGNORED):
            continue
        found[key] = (
            _Measure(value, *derived[key]) if key in derived else _measure(value, samples.get(key))
        )
    return found


def figures(runs: Sequence[Run], results: Sequence[Any] | None = None) -> pd.DataFrame:
    """Long form: one row per key figure and run, with quartiles where the figure has raw
    samples, its ratio to the first run and the noise verdict. `results`: the runs' loaded
    results (registry.load), when the caller has them."""
    experiment = runs[0].spec["experiment"]
    stage = registry.comparison(experiment)
    if results is None:
        results = [registry.load(run) for run in runs]
    measured = [_measured(r, res, stage) for r, res in zip(runs, results, strict=True)]
    rows = []
    for key in dict.fromkeys(k for m in measured for k in m):
        base = measured[0].get(key, _Measure(None))
        for i, (run, found) in enumerate(zip(runs, measured, strict=True)):
            m = found.get(key, _Measure(None))
            rows.append(
                {
                    "key": key,
                    "figure": compare_table.figure_label(experiment, key),
                    "unit": compare_table.unit(experiment, key),
                    "better": glossary.better(experiment, key),
                    "run": label(run),
                    **vars(m),
                    "ratio": _ratio(m.value, base.value),
                    "verdict": BASELINE if i == 0 else verdict(m, base),
                }
            )
    return pd.DataFrame(rows, columns=FIGURE_COLUMNS)


def _ignored(key: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(key, p) for p in patterns)


def _biggest(long: pd.DataFrame) -> tuple[pd.Series | None, str]:
    """The figure that changed most against the baseline: the largest |log ratio| beyond noise;
    where nothing had spread to judge by, the largest change without it."""
    positive = long[long["ratio"].notna() & (long["ratio"] > 0) & (long["ratio"] != 1)]
    for kind in (BEYOND, NO_SPREAD):
        found = positive[positive["verdict"] == kind]
        if not found.empty:
            return found.loc[found["ratio"].map(lambda r: abs(math.log(r))).idxmax()], kind
    return None, ""


def _differ_text(diffs: pd.DataFrame, labels: Sequence[str]) -> str:
    """Which fields differ, with their values, saying nothing of which one made a change."""
    if diffs.empty:
        return "The runs share spec and environment"
    if "section" in diffs:  # what was asked for (the spec) before where it ran
        diffs = diffs.sort_values("section", key=lambda s: s != "spec", kind="stable")
    named = []
    for _, row in diffs.iloc[:NAMED_FIELDS].iterrows():
        values = " vs ".join(dict.fromkeys(str(row[n]) for n in labels))
        named.append(f"{row['field']} ({values})")
    rest = len(diffs) - len(named)
    if rest:
        named.append(f"{rest} more field{'s' if rest > 1 else ''}")
    listed = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
    return (
        f"Fields that differ: {listed}; the comparison does not say which of them, if any, "
        "made the change"
    )


def since(before: Run, after: Run, results: Sequence[Any] | None = None) -> moving.Moved:
    """What moved from `before` to `after` (two runs of one experiment): the line under a
    report's headline. `results`: their loaded results (registry.load), where the caller has them."""
    ids = (label(before), label(after))
    return moving.Moved(
        before_id=int(before.id or 0),
        after_id=int(after.id or 0),
        changed=tuple(moving.changed_fields(before.spec, after.spec)),
        moves=tuple(moving.moves(figures([before, after], results), _experiment(after), ids)),
    )


def _experiment(run: Run) -> str:
    return str(run.spec.get("experiment"))


def headline_first(long: pd.DataFrame, experiment: str) -> pd.DataFrame:
    """The long form with the headline figure's rows first (the table reads it first), the
    rest in their order."""
    keys = registry.headline_keys(experiment)
    first = long["key"].map(lambda k: not any(labels_.matches(experiment, h, k) for h in keys))
    return long.iloc[first.argsort(kind="stable")].reset_index(drop=True) if len(long) else long


def lead(long: pd.DataFrame, experiment: str, labels: Sequence[str]) -> str:
    """The headline figure of each run against the baseline, what a comparison says first:
    "measured speed-up (eager ÷ compiled) 1.6× in #6 → 1.9× in #7: 1.2× higher (better), within
    noise. Biggest change: " (the rest of the headline follows)."""
    said = []
    for other in labels[1:]:
        for move in moving.moves(long, experiment, (labels[0], other))[: moving.SHOWN_FIGURES]:
            said.append(
                f"{move.figure} {move.before} in {labels[0]} → {move.after} in {other}: "
                f"{move.change}, {move.verdict}"
            )
    return "; ".join(said) + ". Biggest change: " if said else ""


def headline(long: pd.DataFrame, diffs: pd.DataFrame, labels: Sequence[str]) -> str:
    """What changed most against the baseline, its direction in words from the glossary
    ("4× faster", "1.3× more bytes (worse)"), then the fields that differ, as facts beside it."""
    row, kind = _biggest(long)
    if row is None:
        where = " where each has it" if (long["verdict"] == MISSING).any() else ""
        change = f"No key figure differs between {' and '.join(labels)}{where}"
    else:
        better = row["better"] if "better" in row and isinstance(row["better"], str) else "neither"
        unit = row["unit"] if isinstance(row.get("unit"), str) else None
        said = ratio_words(row["ratio"], unit, better)
        change = f"{row['figure']}: {said} in {row['run']} than {labels[0]} ({kind})"
    return f"{change}. {_differ_text(diffs, labels)}."


@dataclass(frozen=True)
class Comparison:
    experiment: str
    labels: tuple[str, ...]
    differences: pd.DataFrame  # section, field, one column per run
    figures: pd.DataFrame  # long form (FIGURE_COLUMNS)
    table: pd.DataFrame  # figure_table: the figures for reading
    headline: str
    workloads: str  # one line when the runs ran different workloads (or parameters); else ""
    charts: tuple[tuple[str, Any], ...]  # (title, Altair chart), the run as colour
    notes: tuple[str, ...]
    # the baseline's kernels against each other run's (experiments whose compare stage lists
    # kernels: fusion); () for the others
    kernel_diffs: tuple[kd.KernelDiff, ...] = ()
    # beside `table`: each run's noise cell judged better / worse by the glossary's direction
    judged: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)


def kernel_diffs(
    runs: Sequence[Run], results: Sequence[Any], diffs: pd.DataFrame
) -> tuple[kd.KernelDiff, ...]:
    """The baseline's kernels against each other run's, where the experiment's compare stage
    lists kernels (its `kernels(result)`: mode → compare.kernels.Kernel) and both have results."""
    lister = getattr(registry.comparison(runs[0].spec["experiment"]), "kernels", None)
    if lister is None or results[0] is None:
        return ()
    base, a = lister(results[0]), label(runs[0])
    return tuple(
        kd.KernelDiff(
            a, label(run), kd.spec_fields(diffs, a, label(run)), kd.diff_modes(base, lister(res))
        )
        for run, res in zip(runs[1:], results[1:], strict=True)
        if res is not None
    )


def build(runs: Sequence[Run]) -> Comparison:
    """Everything the page and the CLI show of a comparison (raises CompareError). Each run's
    result is rebuilt once, for its figures and the charts."""
    check(runs)
    experiment = runs[0].spec["experiment"]
    labels = tuple(label(r) for r in runs)
    loaded = [registry.load(r) for r in runs]
    diffs, long = differences(runs), headline_first(figures(runs, loaded), experiment)
    results = [(label(r), res) for r, res in zip(runs, loaded, strict=True) if res is not None]
    notes = [f"{label(r)} {r.status}: no figures" for r in runs if r.status != "done"]
    notes += [  # a stranger's figures: its machine's, whatever this one would measure
        f"{label(r)} was {imported_from(r.origin)}: measured on that machine, not here"
        for r in runs
        if imported(r.origin)
    ]
    return Comparison(
        experiment=experiment,
        labels=labels,
        differences=diffs,
        figures=long,
        table=compare_table.figure_table(long, labels),
        judged=compare_table.judgements(long, labels),
        headline=lead(long, experiment, labels) + headline(long, diffs, labels),
        workloads=workloads.line(runs, labels),
        charts=tuple(registry.comparison(experiment).charts(results)) if results else (),
        notes=tuple(notes),
        kernel_diffs=kernel_diffs(runs, loaded, diffs),
    )
