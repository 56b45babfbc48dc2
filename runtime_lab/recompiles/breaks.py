"""The workload with a graph break: graph and break counts, reasons, and what fullgraph=True says."""

from __future__ import annotations

import inspect
import io
from contextlib import nullcontext

import torch
import torch.nn.functional as F
from torch._dynamo.utils import counters

from runtime_lab.lab import compile_tools as ct
from runtime_lab.lab.base import Context, torch_dtype
from runtime_lab.lab.compile_trace import capture, evidence
from runtime_lab.recompiles.result import GraphBreakResult
from runtime_lab.spec import RunSpec

MAX_TEXT = 3000
HOST_LOG = (
    io.StringIO()
)  # print()'s target: a host side effect that stays out of the worker's stdout


def item_branch(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    s = x + y
    if not s.isfinite().all().item():  # a host-side check of device data: Dynamo breaks here
        raise ValueError("non-finite values in x + y")
    return F.silu(s) * (x - y)


def print_effect(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    s = x + y
    print("pointwise called", file=HOST_LOG)  # a host side effect: Dynamo breaks here
    return F.silu(s) * (x - y)


VARIANTS = {"item-branch": item_branch, "print": print_effect}


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), text)


def run_variant(
    variant: str, shape: tuple[int, ...], dtype: str, spec: RunSpec, ctx: Context
) -> GraphBreakResult:
    """Compile the variant from a clean state (torch._dynamo.explain would reset the live state
    itself), call it twice, count graphs and breaks; then the same with fullgraph=True."""
    fn = VARIANTS[variant]
    base = {"variant": variant, "source": inspect.getsource(fn), "shape": shape, "dtype": dtype}
    generator = torch.Generator(device=ctx.device).manual_seed(spec.seed)
    x = torch.randn(shape, generator=generator, device=ctx.device, dtype=torch_dtype(dtype))
    y = torch.randn(shape, generator=generator, device=ctx.device, dtype=torch_dtype(dtype))
    backend = spec.option("backend")
    traced = capture(f"breaks-{variant}") if spec.option("compile_trace") else nullcontext()
    try:
        ct.reset()
        compiled = torch.compile(ct.own_copy(fn, f"{fn.__name__}_compiled"), backend=backend)
        with traced as trace:
            out = compiled(x, y)
        compiled(x, y)  # a warm call: the graphs are reused, no new ones
        breaks = dict(counters["graph_break"])
        graphs = counters["stats"].get("unique_graphs", 0)
        matches = bool(torch.allclose(out, fn(x, y), rtol=1e-3, atol=1e-5))
    except Exception as exc:
        return GraphBreakResult(**base, error=f"{type(exc).__name__}: {exc}"[:MAX_TEXT])
    ct.reset()
    error_type = error = None
    try:
        torch.compile(ct.own_copy(fn, f"{fn.__name__}_fullgraph"), backend=backend, fullgraph=True)(
            x, y
        )
    except Exception as exc:  # the point: fullgraph=True refuses the break
        error_type, error = type(exc).__name__, str(exc)[:MAX_TEXT]
    ct.reset()
    return GraphBreakResult(
        **base,
        unique_graphs=graphs,
        graph_breaks=sum(breaks.values()),
        reasons=tuple(f"{_first_line(r)} (×{n})" for r, n in breaks.items()),
        reason_details=tuple(r[:MAX_TEXT] for r in breaks),
        fullgraph_error_type=error_type,
        fullgraph_error=error,
        matches_eager=matches,
        compile_evidence=evidence(trace) if trace is not None else None,
    )
