"""The workload with a graph break: graph and break counts, reasons, and what fullgraph=True says."""

from __future__ import annotations

import inspect
import io
import textwrap
from contextlib import nullcontext

import torch
import torch.nn.functional as F
from torch._dynamo.utils import counters

from runtime_lab.lab import compile_tools as ct
from runtime_lab.lab.base import Context
from runtime_lab.lab.compile_trace import capture, evidence
from runtime_lab.recompiles.result import GraphBreakResult
from runtime_lab.recompiles.run.inputs import Work
from runtime_lab.spec import RunSpec
from runtime_lab.workloads import ops
from runtime_lab.workloads.registry import op_module

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


def item_branch_of(fn):
    """Any workload behind the same data-dependent branch: on its first input, then fn."""

    def item_branch(*inputs):
        if not inputs[0].isfinite().all().item():  # a host-side check: Dynamo breaks here
            raise ValueError("non-finite values in the first input")
        return fn(*inputs)

    return item_branch


def print_effect_of(fn):
    """Any workload after the same host side effect."""

    def print_effect(*inputs):
        print(f"{fn.__name__} called", file=HOST_LOG)  # a host side effect: Dynamo breaks here
        return fn(*inputs)

    return print_effect


WRAPPED = {"item-branch": item_branch_of, "print": print_effect_of}


def _variant(variant: str, work: Work) -> tuple:
    """(function, its source): the seed's own variants for pointwise, else the workload's fn
    behind the same break (its source after the wrapper's)."""
    if work.name == "pointwise":
        fn = VARIANTS[variant]
        return fn, inspect.getsource(fn)
    fn = WRAPPED[variant](work.fn)
    source = textwrap.dedent(inspect.getsource(fn)) + "\n\n" + inspect.getsource(work.fn)
    return fn, source


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), text)


def run_variant(
    variant: str, work: Work, shape: tuple[int, ...], dtype: str, spec: RunSpec, ctx: Context
) -> GraphBreakResult:
    """Compile the variant from a clean state (torch._dynamo.explain would reset the live state
    itself), call it twice, count graphs and breaks; then the same with fullgraph=True."""
    fn, source = _variant(variant, work)
    base = {"variant": variant, "source": source, "shape": shape, "dtype": dtype}
    made = work.inputs(shape, dtype, spec.seed, ctx.device)
    backend = spec.option("backend")
    traced = capture(f"breaks-{variant}") if spec.option("compile_trace") else nullcontext()
    try:
        ct.reset()
        compiled = torch.compile(ct.own_copy(fn, f"{fn.__name__}_compiled"), backend=backend)
        with traced as trace:
            out = compiled(*made)
        compiled(*made)  # a warm call: the graphs are reused, no new ones
        breaks = dict(counters["graph_break"])
        graphs = counters["stats"].get("unique_graphs", 0)
        rtol, atol = _tolerance(work, dtype)
        matches = bool(torch.allclose(out, fn(*made), rtol=rtol, atol=atol))
    except Exception as exc:
        return GraphBreakResult(**base, error=f"{type(exc).__name__}: {exc}"[:MAX_TEXT])
    ct.reset()
    error_type = error = None
    try:
        fullgraph = ct.own_copy(fn, f"{fn.__name__}_fullgraph")
        torch.compile(fullgraph, backend=backend, fullgraph=True)(*made)
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


def _tolerance(work: Work, dtype: str) -> tuple[float, float]:
    """The seed's 1e-3 / 1e-5, or the workload's own where it is looser (bf16, fp16)."""
    own = getattr(op_module(work.name), "TOLERANCES", {})
    rtol, atol = own.get(dtype, ops.TOLERANCES[dtype])
    return max(rtol, 1e-3), max(atol, 1e-5)
