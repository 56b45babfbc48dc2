"""What a fusion job takes from an earlier stored run with its compile inputs: compile latency and evidence."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from runtime_lab.fusion.report.figures import compiled_mode
from runtime_lab.fusion.result import OWN_FIRST_CALL, FusionResult, ModeResult
from runtime_lab.record import Run
from runtime_lab.results import CompileLatency, from_plain, to_plain
from runtime_lab.spec import RunSpec, SpecError

# spec fields that change what is timed, never what is compiled
TIMING_ONLY = ("warmup", "repeat", "l2_flush", "seed")
# options that change no compile either: whether to reuse at all
NOT_COMPILED = ("reuse_compile",)
LOOKBACK = 200  # stored fusion runs searched, newest first (a short row each)
# modes whose compile the evidence phase traces (run/evidence.py TRACED, and the CUDA graph
# of Inductor's code, which shares the inductor mode's)
TRACED_EXTRA = ("dynamo-eager", "cuda-graph-inductor")
# the records compile_latencies adds to the naive A/B's mode, per option that asks for them
LATENCY_RECORDS = {
    "compile_latency": ("cold", "warm-cache", "warm-process"),
    "fresh_process": ("fresh-process",),
    "mega_cache": ("mega-cache",),
}
SUBPROCESS_OPTIONS = ("fresh_process", "mega_cache")  # the pointwise workload's alone


def compile_inputs(spec: RunSpec) -> dict[str, Any]:
    """The spec less what changes no compile (timing fields, reuse_compile) and less its
    device, which machine() compares as the device the run resolved to."""
    data = spec.to_dict()
    for name in (*TIMING_ONLY, "device"):
        data.pop(name)
    data["options"] = {k: v for k, v in data["options"].items() if k not in NOT_COMPILED}
    return data


def machine(env: Mapping[str, Any] | None, device: str | None) -> tuple | None:
    """Where a compile's cache entries hold: the host, torch and Triton, and the device (the
    GPU's name, or cpu); None where the environment does not say (no worker has said hello)."""
    env = env or {}
    if not (env.get("hostname") and env.get("torch")):
        return None
    gpus = env.get("gpus") or []
    on_gpu = str(device or "").startswith("cuda") and gpus
    return (
        env["hostname"],
        env["torch"],
        env.get("triton"),
        gpus[0].get("name") if on_gpu else "cpu",
    )


def lender(spec: RunSpec, env: Mapping[str, Any], history: Any) -> Run | None:
    """The newest stored run a job of `spec`, on the worker whose fingerprint is `env`, may
    take its compile records from: done, made here (not imported), on this machine, with the
    same compile inputs, and holding every record and trace its spec asked for. None: the job
    measures them itself (reuse_compile off, or no such run)."""
    if not spec.option("reuse_compile"):
        return None
    here = machine(env, spec.device if spec.device != "auto" else _auto(env))
    if here is None:
        return None
    wanted = compile_inputs(spec)
    for row in history.list("fusion", limit=LOOKBACK):
        if row["status"] != "done" or row["origin"] is not None or not _alike(row["spec"], spec):
            continue
        if _inputs(row["spec"]) != wanted:  # validated only where shape and dtype agree
            continue
        run = history.get(row["id"])
        if run is not None and machine(run.env, run.device) == here and holds(run):
            return run
    return None


def _auto(env: Mapping[str, Any]) -> str:
    return "cuda" if env.get("gpus") else "cpu"


def _alike(stored: Mapping[str, Any], spec: RunSpec) -> bool:
    return stored.get("dtype") == spec.dtype and list(stored.get("shape") or ()) == list(spec.shape)


def _inputs(stored: Mapping[str, Any]) -> dict[str, Any] | None:
    """A stored spec's compile inputs as today's spec reads it (renamed options, defaults of
    options added since), None where it no longer validates."""
    try:
        return compile_inputs(RunSpec.from_dict(dict(stored)))
    except (SpecError, TypeError, ValueError, KeyError):
        return None


def holds(run: Run) -> bool:
    """Whether a stored run's result has what its spec asked of compile latency and evidence:
    the naive A/B's cold first call (empty cache folders: recorded since issue 49) with its
    graph left in the persistent cache, the latency scenarios of its options, each traced
    mode's evidence."""
    try:
        result = from_plain(FusionResult, run.result)
        spec = RunSpec.from_dict(dict(run.spec))
    except (SpecError, TypeError, ValueError, KeyError, AttributeError):
        return False
    naive = compiled_mode(result)
    if naive is None or naive.error:  # nothing compiled, or its latency failed
        return False
    scenarios = {c.scenario: c for c in naive.compile}
    first = scenarios.get("first call")
    if first is None or first.cache_dirs != "empty" or not _persisted(naive):
        return False
    plain = spec.option("workload") == "pointwise"
    for option, needed in LATENCY_RECORDS.items():
        asked = spec.option(option) and (plain or option not in SUBPROCESS_OPTIONS)
        if asked and not all(s in scenarios for s in needed):
            return False
    traced = [m for m in result.modes if m.ran and _traced(m.mode)]
    return not spec.option("compile_trace") or all(m.compile_evidence for m in traced)


def _persisted(naive: ModeResult) -> bool:
    """Whether the run left the naive arm's graph in the persistent cache (a compile there
    found or wrote its entries: the warm-cache one, or a reusing run's own first call), so
    that a job taking its cold first call loads the graph instead of compiling it again."""
    return any(
        c.cache_dirs == "persistent" and (c.cache_hit_keys or c.cache_miss_keys)
        for c in naive.compile
    )


def _traced(mode: str) -> bool:
    return mode.startswith("inductor") or mode in TRACED_EXTRA


def lent(run: Run) -> dict[str, Any]:
    """What the worker is told: the run that measured the records (a run that took its own
    from another names that one)."""
    return {"compile_from_run": (run.result or {}).get("compile_from_run") or run.id}


def merged(result: dict[str, Any], earlier: Run) -> dict[str, Any]:
    """A job's result (whole or partial) made whole from the earlier run's: the naive A/B's
    mode (the one with OWN_FIRST_CALL) gets that run's compile records ahead of its own first
    call, each traced mode that run's compile evidence. A result that measured its own (the
    worker did not reuse) is returned as it is."""
    new = from_plain(FusionResult, result)
    if new.compile_from_run is None:
        return result
    old = from_plain(FusionResult, earlier.result)
    by = {m.mode: m for m in old.modes}
    modes = tuple(_whole(m, by.get(m.mode), earlier.id or 0, old.cache_token) for m in new.modes)
    return to_plain(replace(new, modes=modes))


def _whole(mode: ModeResult, old: ModeResult | None, run_id: int, token: str) -> ModeResult:
    if old is None or not mode.ran:
        return mode
    found = mode
    if any(c.scenario == OWN_FIRST_CALL for c in mode.compile):
        taken = [_taken(c, run_id, token) for c in old.compile if c.scenario != OWN_FIRST_CALL]
        found = replace(found, compile=(*taken, *mode.compile))
    if found.compile_evidence is None and old.compile_evidence is not None:
        found = replace(found, compile_evidence=old.compile_evidence)
    return found


def _taken(c: CompileLatency, run_id: int, token: str) -> CompileLatency:
    """A record taken from run #run_id, named as that run's measurement; what it found in the
    cache that run wrote itself is then warm from run #run_id (that run called it its own)."""
    if c.measured_in_run is not None:  # that run took it from another: it stays that one's
        return c
    runs = c.warm_from_runs
    if token and token in c.cache_writers:
        runs = tuple(sorted({*runs, run_id}))
    return replace(c, measured_in_run=run_id, warm_from_runs=runs)
