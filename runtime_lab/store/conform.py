"""A bundle run's fields against the shapes their readers expect: result, spec, env, worker."""

# A reader trusts a field's shape: the report formats a result's float, the provenance table
# expands env.gpus[0], the process notes join worker.disturbed_by. A value of another type got
# past the import and raised in every session that drew the run, so each is checked here: the
# result against its experiment's result dataclasses, the rest against what the worker writes.

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any

from runtime_lab import registry
from runtime_lab.results import field_hints
from runtime_lab.store.values import Refused, kind, number, step

EVERY = ...  # a schema key standing for every key of an object (e.g. process_probe.ratios)
# every key may be absent or null (older runs lack some); keys not listed may hold any JSON
_GPU = {
    "index": int,
    "name": str,
    "compute_capability": str,
    "sm_count": int,
    "memory_bytes": int,
    "l2_cache_bytes": int,
    "bf16_supported": bool,
}
ENV = {  # what env.fingerprint() writes, and the pool's lane
    **dict.fromkeys(("python", "torch", "cuda_runtime", "triton", "driver", "host_cpu"), str),
    **dict.fromkeys(("platform", "hostname", "torch_threads_source", "lane"), str),
    **dict.fromkeys(("cudnn", "host_cores", "host_physical_cores", "torch_threads", "pid"), int),
    **dict.fromkeys(("host_ram_bytes", "host_ram_available_bytes", "host_llc_bytes"), int),
    "cuda_available": bool,
    "gpus": [_GPU],
}
WORKER = {  # runner/lane.py and jobs.py: which worker ran it, after what, alongside whom
    **dict.fromkeys(("pid", "jobs_before"), int),
    **dict.fromkeys(
        ("fresh_after_disturbed", "started_as_spare", "spare_started_during_evidence", "forked"),
        bool,
    ),
    **dict.fromkeys(("previous_disturbed_by", "disturbed_by"), [str]),
    **dict.fromkeys(("lane", "node", "host"), str),
    "ready_mono": float,
    "alongside": [{"job_id": str, "lane": str, "label": str}],
    "workload_code": {"file": str, "sha256": str, "source": str, "truncated": bool},
    "stages": [{"stage": str, **dict.fromkeys(("start_s", "took_s"), float)}],
}
_PROBE = {
    **dict.fromkeys(("dispatch_us", "launch_us", "graph_replay_us", "took_ms"), float),
    "cpu_core": int,
    # baseline only: the worker's start (seconds since its process began, at each step) and
    # its compiler's warm-up (lab/prewarm.py)
    **dict.fromkeys(("imported_at_s", "cuda_ready_at_s", "prewarm_s", "ready_at_s"), float),
    "prewarm": str,
    "zygote_prewarm_s": float,  # the zygote's CPU warm-up, inherited by a forked worker
    "zygote_prewarm": str,
    "vec_isa_s": float,  # a CPU worker of its own: the machine's vector-ISA check (lab/vec_isa.py)
    "gc_frozen_objects": int,  # what start-up imported, kept out of garbage collection
}
PROBE = {  # runner/probe.py compare()
    "job": _PROBE,
    "baseline": _PROBE,
    "ratios": {EVERY: float},
    "threshold_pct": float,
    "flagged": bool,
    "reason": str,
}
SPEC = {  # RunSpec's plain form; shape and options are checked on their own
    **dict.fromkeys(("experiment", "dtype", "device"), str),
    **dict.fromkeys(("warmup", "repeat", "seed"), int),
    "l2_flush": bool,
}
_OPTION_TYPES = {"bool": bool, "int": int}  # every other kind is text (choices, sizes, shapes)
_WORDS = {bool: "true or false", int: "a whole number", float: "a number", str: "a string"}


def check_fields(where: str, run: dict[str, Any]) -> None:
    """env, worker, process_probe, spec and the result, each in the shape its readers use."""
    for name, schema in (("env", ENV), ("worker", WORKER), ("process_probe", PROBE)):
        if run.get(name) is not None:
            match(where, name, schema, run[name])
    match(where, "spec", SPEC, run["spec"])
    _options(where, run["experiment"], run["spec"].get("options") or {})
    if run.get("result") is not None:
        result_type = registry.result_type(run["experiment"])
        conform(where, "result", result_type, run["result"])


def _options(where: str, experiment: str, options: dict[str, Any]) -> None:
    known = registry.EXPERIMENTS[experiment].options
    for name, value in options.items():
        option = known.get(name)
        if option is None:  # another version's option: shown as given, so plain values only
            if isinstance(value, (dict, list)):
                raise Refused(
                    f"{where}spec.options.{name}: must be a plain value, got {kind(value)}"
                )
            continue
        match(where, f"spec.options.{name}", _OPTION_TYPES.get(option.kind, str), value)


def match(where: str, path: str, schema: Any, value: Any) -> None:
    """A plain value against a schema: a type, [schema] (a list of it) or {key: schema};
    null matches anything (the readers take a missing value as null)."""
    if value is None:
        return
    if isinstance(schema, list):
        _expect(where, path, value, list, "a list")
        for index, item in enumerate(value):
            match(where, f"{path}[{index}]", schema[0], item)
    elif isinstance(schema, dict):
        _expect(where, path, value, dict, "an object")
        for key, item in value.items():
            inner = schema.get(key, schema.get(EVERY))
            if inner is not None:
                match(where, step(path, key), inner, item)
    else:
        _scalar(where, path, schema, value)


def conform(where: str, path: str, hint: Any, value: Any) -> None:
    """A result's plain value against its dataclass type hints, as results.from_plain reads it:
    a dataclass is an object, tuple[X, ...] a list, X | None may be null, and a scalar has its
    type (a float may be written as a whole number). Keys the type lacks are not read."""
    if hint is Any:
        return
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        real = [a for a in args if a is not type(None)]
        if value is None or len(real) != 1:
            return
        hint, origin, args = real[0], typing.get_origin(real[0]), typing.get_args(real[0])
    if value is None:
        raise Refused(f"{where}{path}: must be {_word(hint)}, got null")
    if dataclasses.is_dataclass(hint):
        _expect(where, path, value, dict, "an object")
        for name, inner in field_hints(hint).items():
            if name in value:
                conform(where, f"{path}.{name}", inner, value[name])
    elif origin is tuple:
        _expect(where, path, value, list, "a list")
        if len(args) == 2 and args[1] is Ellipsis:
            for index, item in enumerate(value):
                conform(where, f"{path}[{index}]", args[0], item)
        elif len(value) != len(args):
            raise Refused(f"{where}{path}: must be a list of {len(args)}, got {len(value)} items")
        else:
            for index, (inner, item) in enumerate(zip(args, value, strict=True)):
                conform(where, f"{path}[{index}]", inner, item)
    elif origin is dict or hint is dict:
        _expect(where, path, value, dict, "an object")
    elif hint in _WORDS:
        _scalar(where, path, hint, value)


def _scalar(where: str, path: str, wanted: type, value: Any) -> None:
    if wanted is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif wanted is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, wanted)
    if not ok:  # a number that is the wrong kind of number is echoed as given
        got = number(value) if kind(value) == kind(wanted()) else kind(value)
        raise Refused(f"{where}{path}: must be {_WORDS[wanted]}, got {got}")


def _expect(where: str, path: str, value: Any, wanted: type, words: str) -> None:
    if not isinstance(value, wanted):
        raise Refused(f"{where}{path}: must be {words}, got {kind(value)}")


def _word(hint: Any) -> str:
    if dataclasses.is_dataclass(hint):
        return "an object"
    if typing.get_origin(hint) is tuple:
        return "a list"
    return _WORDS.get(hint, "a value")
