"""The seed's side-stream matmul: events order it, a default-stream reference checks it."""

from __future__ import annotations

import math

import torch

from runtime_lab.lab.base import TOLERANCES, Context, element_bytes, torch_dtype
from runtime_lab.lab.timing import CPU_FLUSH_BYTES, CUDA_FLUSH_BYTES, measure
from runtime_lab.results import Timing
from runtime_lab.spec import RunSpec
from runtime_lab.streams import run_csan
from runtime_lab.streams import run_lab as stream_lab
from runtime_lab.streams.result import HARNESS_LABEL, StreamsResult

STEPS = (
    "default: produce x, y",
    "default: record(inputs_ready)",
    "side: wait_event(inputs_ready)",
    "side: z = x @ y",
    "side: record(work_done)",
    "default: wait_event(work_done)",
    "default: consume z, compare with x @ y computed on the default stream",
)


def operand_shapes(
    shape: tuple[int, ...],
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """x has the spec's shape; y swaps its last two dims so x @ y is defined (1-D: a dot)."""
    if len(shape) == 1:
        return shape, shape, ()
    y_shape = (*shape[:-2], shape[-1], shape[-2])
    return shape, y_shape, (*shape[:-1], shape[-2])


def estimate_bytes(spec: RunSpec) -> int:
    x_shape, y_shape, out_shape = operand_shapes(spec.shape)
    x, y, out = math.prod(x_shape), math.prod(y_shape), math.prod(out_shape)
    flush = (CUDA_FLUSH_BYTES if spec.device != "cpu" else CPU_FLUSH_BYTES) if spec.l2_flush else 0
    if spec.device == "cpu":
        # x, y, z, the reference; the diff in float32: two more output-sized buffers
        return (x + y + 3 * out) * element_bytes(spec) + 8 * out + flush
    # variants keep copies of x and y, a temporary and its clone, z, the consumed z, the
    # reference; the overlap cases hold six square matrices each
    overlap = 6 * (stream_lab.big_size(spec) ** 2 + spec.option("overlap_small") ** 2)
    elems = 6 * x + 3 * y + 6 * out + (overlap if spec.option("overlap") else 0)
    return elems * element_bytes(spec) + 8 * out + flush


def _side_stream_matmul(x, y, side: torch.cuda.Stream):
    """The seed's happens-before chain; returns z as consumed on the default stream."""
    default = torch.cuda.current_stream(x.device)
    inputs_ready, work_done = torch.cuda.Event(), torch.cuda.Event()
    inputs_ready.record(default)
    with torch.cuda.stream(side):
        side.wait_event(inputs_ready)
        z = x @ y
        work_done.record(side)
    default.wait_event(work_done)
    # z was allocated on the side stream and is now used on the default one: tell the allocator
    z.record_stream(default)
    return z


def run(spec: RunSpec, ctx: Context) -> StreamsResult:
    device = ctx.device
    if device.type == "cuda":
        stream_lab.check_budget(spec)  # refuse before anything runs
    x_shape, y_shape, out_shape = operand_shapes(spec.shape)
    dtype = torch_dtype(spec.dtype)
    generator = torch.Generator(device=device).manual_seed(spec.seed)
    ctx.progress("making inputs", None, None)
    x = torch.randn(x_shape, generator=generator, device=device, dtype=dtype)
    y = torch.randn(y_shape, generator=generator, device=device, dtype=dtype)
    cuda = device.type == "cuda"
    side = torch.cuda.Stream(device) if cuda else None
    ctx.progress("checking correctness", None, None)
    if cuda:
        consumed = _side_stream_matmul(x, y, side).clone()
        reference = x @ y
        torch.cuda.synchronize(device)
    else:
        consumed, reference = x @ y, x @ y
    diff = (consumed.float() - reference.float()).abs().max().item()
    rtol, atol = TOLERANCES[spec.dtype]
    passed = bool(torch.allclose(consumed, reference, rtol=rtol, atol=atol))
    del consumed, reference
    timings = _timings(spec, ctx, x, y, side) if passed else ()
    extras = stream_lab.run_cuda_parts(spec, ctx, x, y, side, generator) if cuda and passed else {}
    if spec.option("sanitizer"):  # last: a child process, after everything this one timed
        extras |= _sanitizer(spec, ctx, cuda)
    return StreamsResult(
        device=str(device),
        streams_supported=cuda,
        max_abs_diff=diff,
        tolerance_passed=passed,
        rtol=rtol,
        atol=atol,
        output_shape=tuple(out_shape),
        steps=STEPS if cuda else ("cpu: z = x @ y", "cpu: compare z with the reference x @ y"),
        timings=timings,
        note=_note(cuda, passed),
        **extras,
    )


def _timings(spec: RunSpec, ctx: Context, x, y, side) -> tuple[Timing, ...]:
    """Correctness came first: only a right result is worth a speed."""
    cuda = side is not None
    timed = {HARNESS_LABEL if cuda else "x @ y (cpu)": lambda: x @ y}
    if cuda:
        timed = {"side stream + events": lambda: _side_stream_matmul(x, y, side), **timed}
    return tuple(
        measure(
            fn,
            device=ctx.device,
            label=label,
            warmup=spec.warmup,
            repeat=spec.repeat,
            l2_flush=spec.l2_flush,
            progress=ctx.progress,
        )
        for label, fn in timed.items()
    )


def _sanitizer(spec: RunSpec, ctx: Context, cuda: bool) -> dict:
    if not cuda:
        return {"csan_note": "CSAN (the CUDA sanitizer) watches CUDA streams: it needs a GPU"}
    ctx.progress("the orderings under the CUDA sanitizer (child process)", None, None)
    found, note = run_csan.verdicts(spec, str(ctx.device), operand_shapes(spec.shape))
    return {"csan": found, "csan_note": note}


def _note(cuda: bool, passed: bool) -> str:
    note = (
        "Side-stream matmul ordered by inputs_ready / work_done events; times are CUDA-event "
        "device times per call."
        if cuda
        else "CUDA streams and events need a GPU: on CPU the lab ran the correctness branch "
        "(x @ y against the reference) and timed the matmul with the host clock. The ordering "
        "variants, timelines, overlap and event timing need CUDA and were not run."
    )
    return note if passed else "Result outside tolerance: not timed. " + note
