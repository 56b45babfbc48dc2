"""torch.compile bookkeeping in the worker: clean state, cache dirs, metrics, generated code."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import torch
import torch._dynamo.utils as dynamo_utils
from torch._dynamo.utils import counters

from runtime_lab.results_fusion import CompileLatency

MAX_CODE_CHARS = 40_000
CACHE_ENV = ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR")


def reset() -> None:
    """A clean compile state: reset() alone keeps counters and the metrics deque, so clear them."""
    torch.compiler.reset()
    clear_records()


def clear_records() -> None:
    """Forget counters and compilation metrics, keeping compiled code (for warm-process counts)."""
    counters.clear()
    dynamo_utils.clear_compilation_metrics()


@contextmanager
def fresh_cache_dirs() -> Iterator[Path]:
    """Point Inductor and Triton at empty cache directories (a truly cold compile), then restore."""
    saved = {k: os.environ.get(k) for k in CACHE_ENV}
    root = Path(tempfile.mkdtemp(prefix="runtime-lab-cold-"))
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(root / "inductor")
    os.environ["TRITON_CACHE_DIR"] = str(root / "triton")
    try:
        yield root
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        shutil.rmtree(root, ignore_errors=True)


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
