"""The compile-cache state a first call or a compile ran with, and the run that measured it, in words."""

from __future__ import annotations

from runtime_lab.results import CompileLatency

EMPTY = "empty"  # no entry at all in the cache folders, as on a new machine
COLD = "cold"  # entries there, none for this graph
IN_WORKER = "warm in this worker"  # already compiled in the process: no compile, no lookup
NO_LOOKUP = "no Inductor cache"  # compiled without Inductor (backend="eager"), or bypassed
UNNAMED = "an earlier compile outside this lab's stored runs"
PENDING = "an earlier compile"  # the writers are read once every timed figure is in
# a run that took its compile records from an earlier one (FusionResult.compile_from_run)
FROM_RUN = (
    "Compile latency and compile evidence: from run #{} (same compile inputs; this run "
    "changed only warm-up/timed calls/flush/seed)"
)


def state(c: CompileLatency, own: str = "") -> str | None:
    """The state: "empty", "cold", "warm from run #6", "warm from this run", "partly warm
    from …" (it found some of its graphs), "warm in this worker", "no Inductor cache"; None
    where the run did not record it (one from before issue 49, or a mode that compiles
    nothing). `own`: the run's cache token (FusionResult.cache_token): its own writes."""
    if c.cache_dirs is None:
        return None
    if not c.compiles:
        return IN_WORKER
    hits = c.fx_cache_hits + c.aot_cache_hits
    misses = c.fx_cache_misses + c.aot_cache_misses
    if not hits:
        return (COLD if c.cache_entries_before else EMPTY) if misses else NO_LOOKUP
    return f"{'partly warm' if misses else 'warm'} from {writers(c, own)}"


def writers(c: CompileLatency, own: str) -> str:
    """Who wrote what a compile found: this lab's runs by number, this run, or neither."""
    if not c.cache_writers:
        return PENDING
    parts = [f"run #{n}" for n in c.warm_from_runs]
    if own and own in c.cache_writers:
        parts.append("this run")
    others = {w for w in c.cache_writers if w != own}
    if "" in others or len(others) > len(c.warm_from_runs):  # a writer no stored run names
        parts.append(UNNAMED)
    return " and ".join(parts)


def said(found: str | None) -> str:
    """A state (state()) as a report says it beside a figure: "compile cache warm from run #6";
    "" where none was recorded."""
    if found is None:
        return ""
    if found == IN_WORKER:
        return "already compiled in this worker: no compile"
    if found == NO_LOOKUP:
        return "no Inductor cache lookup"
    if found == COLD:
        return "compile cache cold: none of its entries for this graph"
    return f"compile cache {found}"


def beside(text: str, found: str | None, from_run: int | None = None) -> str:
    """A figure's text with its cache state after it, where the run recorded one, and the
    earlier run that measured it, where the run took it from there."""
    parts = [f"measured in run #{from_run}"] if from_run is not None else []
    parts += [said(found)] if found is not None else []
    if not parts or text == "—":
        return text
    return f"{text} ({'; '.join(parts)})"


def measured_in(c: CompileLatency) -> str:
    """Which run measured a compile record: "this run", or the earlier one it was taken from."""
    return "this run" if c.measured_in_run is None else f"run #{c.measured_in_run}"


def from_line(from_run: int | None) -> list[str]:
    """The one line a run that took its compile records from an earlier one says ([] else)."""
    return [] if from_run is None else [FROM_RUN.format(from_run)]
