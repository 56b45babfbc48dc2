"""Recompiles, the measuring part: inputs (marked dynamic where asked) and steady-state times."""

from __future__ import annotations

import torch

from runtime_lab.lab.base import Context, torch_dtype
from runtime_lab.lab.timing import measure
from runtime_lab.lab.workload import pointwise
from runtime_lab.recompiles.result import CallRecord
from runtime_lab.results import stats
from runtime_lab.shapes import entry_text
from runtime_lab.spec import RunSpec


def inputs(shape, dtype: str, seed: int, device, dims: tuple[int, ...] | None):
    generator = torch.Generator(device=device).manual_seed(seed)
    x = torch.randn(shape, generator=generator, device=device, dtype=torch_dtype(dtype))
    y = torch.randn(shape, generator=generator, device=device, dtype=torch_dtype(dtype))
    for d in dims or ():
        if d < x.dim():  # a dim the shape lacks is skipped, as a shorter shape has no such dim
            torch._dynamo.mark_dynamic(x, d)
            torch._dynamo.mark_dynamic(y, d)
    return x, y


def steady_times(compiled, records: list[CallRecord], spec: RunSpec, ctx: Context, marks, label):
    """Median time per call of each distinct input once compiled (the frames stay as they are)."""
    found: dict[tuple, tuple[float, float] | None] = {}
    for record in records:
        key = (record.shape, record.dtype)
        if key in found or record.event == "failed":
            continue
        x, y = inputs(record.shape, record.dtype, spec.seed + record.index, ctx.device, marks)
        try:
            t = measure(
                lambda x=x, y=y: compiled(x, y),
                device=ctx.device,
                label=f"{label} {entry_text(record.shape, record.dtype)}",
                warmup=spec.warmup,
                repeat=spec.repeat,
                l2_flush=spec.l2_flush,
                progress=ctx.progress,
            )
            s = stats(t.primary_ms)
            found[key] = (s.median, s.iqr)
        except Exception:  # e.g. a shape that only ever failed: no steady state to show
            found[key] = None
    return found


def eager_times(calls, spec: RunSpec, ctx: Context) -> dict[tuple, float | None]:
    found: dict[tuple, float | None] = {}
    for i, (shape, dtype) in enumerate(calls, start=1):
        if (shape, dtype) in found:
            continue
        ctx.progress(f"eager reference {entry_text(shape, dtype)}", None, None)
        x, y = inputs(shape, dtype, spec.seed + i, ctx.device, None)
        t = measure(
            lambda x=x, y=y: pointwise(x, y),
            device=ctx.device,
            label=f"eager {entry_text(shape, dtype)}",
            warmup=spec.warmup,
            repeat=spec.repeat,
            l2_flush=spec.l2_flush,
        )
        found[(shape, dtype)] = stats(t.primary_ms).median
    return found
