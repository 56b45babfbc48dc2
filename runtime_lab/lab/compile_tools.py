"""torch.compile bookkeeping in the worker: clean state, cache dirs, metrics, generated code."""

from __future__ import annotations

import logging
import os
import re
import shutil
import tempfile
import time
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import torch
import torch._dynamo.utils as dynamo_utils
from torch._dynamo.utils import counters

from runtime_lab.compiler.log import strip_guard_comments
from runtime_lab.lab import cache_env, vec_isa
from runtime_lab.lab.cache_env import cache_dirs
from runtime_lab.results import CompileLatency

MAX_CODE_CHARS = 40_000


def reset() -> None:
    """A clean compile state: reset() alone keeps counters and the metrics deque, so clear them."""
    torch.compiler.reset()
    clear_records()


def clear_records() -> None:
    """Forget counters and compilation metrics, keeping compiled code (for warm-process counts)."""
    counters.clear()
    dynamo_utils.clear_compilation_metrics()


@contextmanager
def empty_cache_root(device: object = None) -> Iterator[Path]:
    """An empty folder for Inductor's and Triton's caches (cache_dirs points them at it), removed
    after. On the CPU the machine's vector-ISA check is answered first, from the machine's
    cache: it is no compile's (lab/vec_isa.py)."""
    vec_isa.probe(device)
    root = Path(tempfile.mkdtemp(prefix="runtime-lab-cold-"))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def fresh_cache_dirs(device: object = None) -> Iterator[Path]:
    """Point Inductor and Triton at empty cache directories (a truly cold compile), then restore."""
    with empty_cache_root(device) as root, cache_dirs(root):
        yield root


# Inductor's and AOTAutograd's own words for a cache lookup, INFO records of these loggers:
# "fx graph cache hit for key fx…", "AOTAutograd cache miss for key ak…"
CACHE_LOGGERS = ("torch._inductor.codecache", "torch._functorch._aot_autograd.autograd_cache")
LOOKUP = re.compile(r"cache (hit|miss) for key (\S+)")


class _Lookups(logging.Filter):
    """Keeps each lookup message; passes on only what the logger showed before (`shown_from`)."""

    def __init__(self, shown_from: int, messages: list[str]) -> None:
        super().__init__()
        self.shown_from, self.messages = shown_from, messages

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if LOOKUP.search(message):
            self.messages.append(message)
        return record.levelno >= self.shown_from


@contextmanager
def _lookups() -> Iterator[list[str]]:
    """The cache lookups logged while inside; INFO is turned on for them alone, so nothing new
    reaches stderr (what TORCH_LOGS already showed still does)."""
    messages: list[str] = []
    saved = []
    for name in CACHE_LOGGERS:
        logger = logging.getLogger(name)
        lookup = _Lookups(logger.getEffectiveLevel(), messages)
        saved.append((logger, logger.level, lookup))
        logger.addFilter(lookup)
        logger.setLevel(min(logger.getEffectiveLevel(), logging.INFO))
    try:
        yield messages
    finally:
        for logger, level, lookup in saved:
            logger.removeFilter(lookup)
            logger.setLevel(level)


def lookups(messages: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The keys found and the keys missed, in order, each once."""
    found = [m.groups() for m in map(LOOKUP.search, messages) if m]
    hits = tuple(dict.fromkeys(k for state, k in found if state == "hit"))
    return hits, tuple(dict.fromkeys(k for state, k in found if state == "miss"))


@contextmanager
def cache_watch(token: str, dirs: str) -> Iterator[dict]:
    """The compile cache the compiles inside ran with, as CompileLatency's fields (filled on
    exit): the folders ("empty" or "persistent"), the entries there before, the keys found and
    missed; the lab records the missed ones as written by the job `token` (cache_env), so a
    later run that finds them can say which run compiled them."""
    from torch._inductor.runtime.cache_dir_utils import cache_dir

    root = Path(cache_dir())
    found: dict = {"cache_dirs": dirs, "cache_entries_before": cache_env.entries(root)}
    with _lookups() as messages:
        yield found
    found["cache_hit_keys"], found["cache_miss_keys"] = lookups(messages)
    cache_env.record_writer(root, found["cache_miss_keys"], token)


def _s(us: int | float | None) -> float | None:
    return None if us is None else us / 1e6


def latency(scenario: str, first_call_s: float, detail: str = "") -> CompileLatency:
    """Phase times and cache hits of the compiles since the last reset() (runtime records skipped)."""
    records = [
        m for m in dynamo_utils.get_compilation_metrics() if not getattr(m, "is_runtime", False)
    ]

    def total(field: str) -> float | None:
        values = [getattr(m, field, None) for m in records]
        values = [v for v in values if v is not None]
        return _s(sum(values)) if values else None

    return CompileLatency(
        scenario=scenario,
        first_call_s=first_call_s,
        dynamo_s=total("dynamo_cumulative_compile_time_us"),
        aot_s=total("aot_autograd_cumulative_compile_time_us"),
        inductor_s=total("inductor_cumulative_compile_time_us"),
        codegen_s=total("inductor_code_gen_cumulative_compile_time_us"),
        triton_s=total("triton_compile_time_us"),
        fx_cache_hits=counters["inductor"].get("fxgraph_cache_hit", 0),
        fx_cache_misses=counters["inductor"].get("fxgraph_cache_miss", 0),
        aot_cache_hits=counters["aot_autograd"].get("autograd_cache_hit", 0),
        aot_cache_misses=counters["aot_autograd"].get("autograd_cache_miss", 0),
        compiles=len(records),
        detail=detail,
    )


def timed_call(fn: Callable[[], object], device: torch.device) -> float:
    """Wall seconds of one synchronised call (for calls that compile: never steady state)."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    start = time.perf_counter()
    fn()
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return time.perf_counter() - start


def graph_info() -> tuple[int, int, tuple[str, ...]]:
    """Unique graphs, graph breaks and their reasons since the last reset()."""
    breaks = counters["graph_break"]
    reasons = tuple(f"{reason} (×{count})" for reason, count in breaks.items())
    return counters["stats"].get("unique_graphs", 0), sum(breaks.values()), reasons


def cudagraph_skip() -> str | None:
    """Why Inductor did not use CUDA graphs, if it said so."""
    for metric in dynamo_utils.get_compilation_metrics():
        reason = getattr(metric, "cudagraph_skip_reason", None)
        if reason:
            return str(reason)
    skips = counters["inductor"].get("cudagraph_skips", 0)
    return f"{skips} CUDA-graph skip(s)" if skips else None


def code_modules() -> int:
    from torch._inductor.codecache import PyCodeCache

    return len(PyCodeCache.modules)


def generated_code(since: int) -> str | None:
    """Source of the newest Inductor output module loaded after index `since`."""
    from torch._inductor.codecache import PyCodeCache

    for module in reversed(PyCodeCache.modules[since:]):
        path = getattr(module, "__file__", None)
        if path and os.path.exists(path):
            text = Path(path).read_text(encoding="utf-8", errors="replace")
            return (
                text if len(text) <= MAX_CODE_CHARS else text[:MAX_CODE_CHARS] + "\n# … truncated"
            )
    return None


def own_copy(fn: Callable, name: str) -> Callable:
    """fn on its own code object: Dynamo caches (and counts toward recompile_limit) per code
    object, so each compiled variant needs one. The copy also carries its own name: Dynamo keeps
    what it has learnt of sizes (automatic dynamic shapes) per code name and place, so copies
    that shared a name would turn each other's next recompile static or dynamic (seen: a
    dynamic=False copy's compile kept another copy's recompile static). Its defaults and closure
    come along (a wrapper around a workload, a user's function with keyword defaults)."""
    code = fn.__code__.replace(co_name=name)
    if hasattr(code, "co_qualname"):  # Python 3.11+
        code = code.replace(co_qualname=name)
    copy = types.FunctionType(code, fn.__globals__, name, fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    return copy


def compile_records() -> list:
    """Compilation metrics of compiles (runtime records skipped), oldest first."""
    return [
        m for m in dynamo_utils.get_compilation_metrics() if not getattr(m, "is_runtime", False)
    ]


def new_records(before: list) -> list:
    """Records added since `before` was taken (by identity: the metrics deque is bounded)."""
    seen = {id(m) for m in before}
    return [m for m in compile_records() if id(m) not in seen]


def _cache_entries(code: types.CodeType) -> list:
    try:
        from torch._C._dynamo.eval_frame import _debug_get_cache_entry_list

        return list(_debug_get_cache_entry_list(code))
    except Exception:  # a private API: without it the lab says less, never fails
        return []


def served_by(code: types.CodeType, frame_locals: dict) -> str | None:
    """Compile id of the cached frame whose guards pass for these locals (newest first, as
    Dynamo checks them); None when none does, i.e. the call ran eager."""
    for entry in _cache_entries(code):
        try:
            if entry.guard_manager.check(frame_locals):
                return str(entry.compile_id)
        except Exception:
            return None
    return None


def _id_order(compile_id: str) -> tuple[int, ...]:
    """'0/4' → (0, 4); anything unexpected sorts first."""
    return tuple(int(n) for n in re.findall(r"\d+", compile_id)) or (-1,)


def final_guards(code: types.CodeType) -> tuple[str | None, str | None]:
    """Compile id and guard tree of the newest cached frame, without source comments."""
    entries = _cache_entries(code)
    if not entries:
        return None, None
    # the cache list is most-recently-used first; the final frame is the newest compile id
    newest = max(entries, key=lambda e: _id_order(str(getattr(e, "compile_id", ""))))
    try:
        text = str(newest.guard_manager)
    except Exception:
        return str(getattr(newest, "compile_id", "")) or None, None
    # the same cleaning as the structured trace's guard trees (one function for both)
    text = strip_guard_comments(text, MAX_CODE_CHARS)
    return str(getattr(newest, "compile_id", "")) or None, text


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.messages.append(record.getMessage())
        except Exception:
            self.messages.append(str(record.msg))


@contextmanager
def dynamo_log() -> Iterator[list[str]]:
    """Dynamo's log messages while inside, recompile reasons included (the list grows live).
    They go to the run, not to stderr, unless TORCH_LOGS asked for them there."""
    handler = _Collect()
    logger = logging.getLogger("torch._dynamo")
    configured = "TORCH_LOGS" in os.environ  # then set_logs is ignored: leave torch's handlers
    if not configured:
        torch._logging.set_logs(recompiles=True)
        for torch_handler in list(logger.handlers):
            logger.removeHandler(torch_handler)  # set_logs() below puts torch's back
    logger.addHandler(handler)
    try:
        yield handler.messages
    finally:
        logger.removeHandler(handler)
        if not configured:
            torch._logging.set_logs()


def guard_failures(messages: list[str]) -> tuple[str, ...]:
    """The '- 0/1: tensor 'x' size mismatch …' lines of recompile log messages."""
    found = []
    for message in messages:
        if "guard failure" in message:
            found += [m.group(1) for m in re.finditer(r"^\s*- (.+)$", message, re.MULTILINE)]
    return tuple(found)


def warm_compiler(backend: str, device: torch.device) -> None:
    """Compile and run a throwaway function, then reset: the process's one-time compiler start-up
    (imports, toolchain checks) is then not charged to whichever mode happens to run first."""
    fn = torch.compile(lambda t: t * 2 + 1, backend=backend, dynamic=False)
    fn(torch.ones(8, device=device))
    reset()


def guard_misses(code: types.CodeType, frame_locals: dict) -> tuple[str, ...]:
    """Each cached frame's first failing guard for these locals, worded as Dynamo's recompile log
    words it ("0/0: tensor 'x' size mismatch …"): the reason a call would have recompiled."""
    found = []
    for entry in _cache_entries(code):
        try:
            verbose = entry.guard_manager.check_verbose(frame_locals)
            if verbose.result:
                continue
            part = str(list(verbose.verbose_code_parts)[0])
        except Exception:  # a private API: without it the reason is simply not known
            continue
        part = re.sub(r"L\['(\w+)'\]", r"\1", part)  # the log's x, not the guard's L['x']
        found.append(f"{entry.compile_id}: {part}")
    return tuple(found)


def stance_missing(stance: str) -> str | None:
    """Why this torch cannot set the stance (None: it can); leaves the default stance set."""
    set_stance = getattr(torch.compiler, "set_stance", None)
    if set_stance is None:
        return "stance needs torch ≥ 2.6: torch.compiler.set_stance is missing"
    try:
        set_stance(stance)
    except Exception as exc:
        return f"stance {stance} is not known to this torch: {type(exc).__name__}: {exc}"
    finally:
        set_stance("default")
    return None


@contextmanager
def stance(name: str | None) -> Iterator[None]:
    """torch.compiler.set_stance(name) while inside, the default stance again after, error or not."""
    if not name or name == "default":
        yield
        return
    torch.compiler.set_stance(name)
    try:
        yield
    finally:
        torch.compiler.set_stance("default")
