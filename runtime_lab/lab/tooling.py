"""Notice a job turning on a tool that leaves the process slower: profiler, memory history, CSAN."""

from __future__ import annotations

import functools
import sys
from typing import Any

import torch

# Measured on the H200 (runtime-facts.md): eager 256² 40.3 µs/call clean, 45.0 after a second
# profiler session, 65.5 with memory history on, 54.7 after turning it off. Once a tool was on,
# the process stays slower, so the server runs the next job in a fresh worker.
_seen: list[str] = []


def _note(reason: str) -> None:
    if reason not in _seen:
        _seen.append(reason)


def _enabling(args: tuple, kwargs: dict[str, Any]) -> bool:
    """_record_memory_history(enabled=...): None (or False, legacy) turns it off."""
    enabled = args[0] if args else kwargs.get("enabled", "all")
    return enabled not in (None, False)


def _wrap(owner: Any, name: str, reason: str, when=None) -> None:
    original = getattr(owner, name, None)
    if original is None or getattr(original, "_runtime_lab_wrapped", False):
        return

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        # noted before the call: one that fails half-way may still have switched something on
        if when is None or when(args, kwargs):
            _note(reason)
        return original(*args, **kwargs)

    wrapper._runtime_lab_wrapped = True
    setattr(owner, name, wrapper)


def install() -> None:
    """Wrap the few entry points every such tool goes through; call once at worker start."""
    import torch.autograd.profiler as autograd_profiler
    import torch.autograd.profiler_legacy as legacy_profiler
    import torch.cuda.memory as memory

    # torch.profiler.profile, torch.autograd.profiler.profile, emit_nvtx and emit_itt all
    # prepare or enable through these names of torch.autograd.profiler
    for name in ("_prepare_profiler", "_enable_profiler"):
        _wrap(autograd_profiler, name, "profiler")
    _wrap(legacy_profiler, "_enable_profiler_legacy", "profiler")
    # _record_memory_history calls one of these two by module lookup; the C entry points too,
    # for code that calls them directly (absent from a CPU build)
    for name in ("_record_memory_history_impl", "_record_memory_history_legacy"):
        _wrap(memory, name, "memory-history", _enabling)
    for name in ("_cuda_record_memory_history", "_cuda_record_memory_history_legacy"):
        _wrap(torch._C, name, "memory-history", _enabling)


def _still_on() -> list[str]:
    """What is on right now whoever turned it on (TORCH_CUDA_SANITIZER at import, say)."""
    found = []
    if torch.autograd.profiler._is_profiler_enabled or torch._C._autograd._profiler_enabled():
        found.append("profiler")
    # Importing torch.cuda._sanitizer is enough: its module-level CUDASanitizer() calls
    # torch._C._activate_gpu_trace(), so every launch and allocation calls back into Python
    # from then on, enabled or not (H200: eager 256² loop 26.8 → 103.6 µs/call). Never import
    # it here; a job that did leaves the process disturbed.
    if "torch.cuda._sanitizer" in sys.modules:
        found.append("cuda-sanitizer")
    return found


def take() -> list[str]:
    """The tools turned on since the last call (or still on), and forget them."""
    for reason in _still_on():
        _note(reason)
    found = list(_seen)
    _seen.clear()
    return found
