"""Compiled Triton kernels' metadata (registers, spills, shared memory, config) from Inductor."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from runtime_lab.results import TritonKernel

NOT_IN_BUILD = "Triton kernel metadata not in this build"


def _int(value) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _config(cfg) -> tuple[str, int | None, int | None]:
    kwargs = dict(getattr(cfg, "kwargs", None) or {})
    warps, stages = _int(getattr(cfg, "num_warps", None)), _int(getattr(cfg, "num_stages", None))
    parts = [f"{k}={v}" for k, v in kwargs.items()]
    parts += [
        f"{k}={v}" for k, v in (("num_warps", warps), ("num_stages", stages)) if v is not None
    ]
    return ", ".join(parts), warps, stages


def _shared(holder) -> int | None:
    found = getattr(holder, "shared", None)
    if found is None:  # older Triton keeps it in the compiled binary's metadata
        found = getattr(getattr(holder, "metadata", None), "shared", None)
    return _int(found)


def _describe(tuner) -> list[TritonKernel]:
    """One row per launcher Inductor kept (after autotuning: the winner). A launcher carries
    n_regs / n_spills / shared (torch ≥ 2.6 sets them on both the static and Triton launchers);
    before the first call only compile_results exist: their compiled kernel has them."""
    name = getattr(getattr(tuner, "fn", None), "__name__", None)
    name = name or (getattr(tuner, "inductor_meta", None) or {}).get("kernel_name") or "?"
    launchers = list(getattr(tuner, "launchers", None) or [])
    results = list(getattr(tuner, "compile_results", None) or [])
    sources = launchers or [getattr(r, "kernel", None) for r in results]
    configs = [getattr(x, "config", None) for x in (launchers or results)]
    rows = []
    for source, cfg in zip(sources, configs, strict=True):
        text, warps, stages = _config(cfg)
        rows.append(
            TritonKernel(
                name=name,
                num_warps=warps,
                num_stages=stages,
                registers=_int(getattr(source, "n_regs", None)),
                spilled_registers=_int(getattr(source, "n_spills", None)),
                shared_bytes=_shared(source),
                config=text,
            )
        )
    return rows


@contextlib.contextmanager
def _launched() -> Iterator[list]:
    """Every Inductor Triton kernel object whose run() is called inside the block."""
    from torch._inductor.runtime.triton_heuristics import CachingAutotuner

    seen: list = []
    original = CachingAutotuner.run

    def run(self, *args, **kwargs):
        seen.append(self)
        return original(self, *args, **kwargs)

    CachingAutotuner.run = run
    try:
        yield seen
    finally:
        CachingAutotuner.run = original


def _loaded_since(mark: int) -> list:
    """Triton kernel objects of the Inductor output modules loaded after index `mark`."""
    from torch._inductor.codecache import PyCodeCache
    from torch._inductor.runtime.triton_heuristics import CachingAutotuner

    found = []
    for module in PyCodeCache.modules[mark:]:
        found += [v for v in vars(module).values() if isinstance(v, CachingAutotuner)]
    return found


def kernels(fn: Callable[[], object], mark: int) -> tuple[tuple[TritonKernel, ...], str | None]:
    """The Triton kernels one call of fn launches (a graph replay launches none from Python:
    then those of the modules its compile loaded after `mark`), and a note when there are
    none. Private Inductor API throughout: any failure is "not in this build", never an error."""
    try:
        with _launched() as seen:
            fn()
        tuners = list(dict.fromkeys(seen)) or _loaded_since(mark)
        found = tuple(row for tuner in tuners for row in _describe(tuner))
    except Exception as exc:
        return (), f"{NOT_IN_BUILD} ({type(exc).__name__}: {exc})"[:300]
    if not found:
        return (), (
            "no Inductor Triton kernel seen: none launched from Python in a call and none loaded "
            "by this mode's compile in this job (compiled by an earlier job in this worker)"
        )
    return found, None
