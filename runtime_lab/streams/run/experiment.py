"""The side stream's op (the seed's matmul or a workload): events order it, a reference checks it."""

from __future__ import annotations

import math

import torch

from runtime_lab.lab.base import Context, element_bytes
from runtime_lab.lab.timing import CPU_FLUSH_BYTES, CUDA_FLUSH_BYTES, measure
from runtime_lab.results import Timing
from runtime_lab.spec import RunSpec
from runtime_lab.streams.info import SEED_OP
from runtime_lab.streams.result import HARNESS_LABEL, StreamsResult
from runtime_lab.streams.run import csan as run_csan
from runtime_lab.streams.run import cuda_parts as stream_lab
from runtime_lab.streams.run import side_op
from runtime_lab.streams.run.side_op import SideOp
from runtime_lab.workloads.fit import spec_params

STEPS = (
    "default: produce x, y",
    "default: record(inputs_ready)",
    "side: wait_event(inputs_ready)",
    "side: z = x @ y",
    "side: record(work_done)",
    "default: wait_event(work_done)",
    "default: consume z, compare with x @ y computed on the default stream",
)


def estimate_bytes(spec: RunSpec) -> int:
    inputs, out, between = side_op.footprint(spec)  # the seed's: x + y, z, nothing between
    flush = (CUDA_FLUSH_BYTES if spec.device != "cpu" else CPU_FLUSH_BYTES) if spec.l2_flush else 0
    diff = 2 * 4 * out // element_bytes(spec)  # |z - reference| in float32, twice
    if spec.device == "cpu":  # the inputs, z, the reference, what the op writes between
        return inputs + 3 * out + between + diff + flush
    if spec.option("workload") == SEED_OP:
        return _seed_bytes(spec, inputs, out) + diff + flush
    # the inputs three times (live, the trials' copy, a trial's reference copy), a temporary,
    # six outputs, two calls' intermediates; each overlap case two chains of inputs + output
    overlap = 2 * 2 * (inputs + out + between) if spec.option("overlap") else 0
    return 4 * inputs + 6 * out + 2 * between + overlap + diff + flush


def _seed_bytes(spec: RunSpec, inputs: int, out: int) -> int:
    """As before the catalog: variants keep copies of x and y, a temporary and its clone, z,
    the consumed z, the reference; the overlap cases hold six square matrices each."""
    x = math.prod(spec.shape) * element_bytes(spec)
    squares = stream_lab.big_size(spec) ** 2 + spec.option("overlap_small") ** 2
    overlap = 6 * squares * element_bytes(spec) if spec.option("overlap") else 0
    return 6 * x + 3 * (inputs - x) + 6 * out + overlap


def _side_stream(op: SideOp, side: torch.cuda.Stream):
    """The seed's happens-before chain; returns z as consumed on the default stream."""
    default = torch.cuda.current_stream(op.inputs[0].device)
    inputs_ready, work_done = torch.cuda.Event(), torch.cuda.Event()
    inputs_ready.record(default)
    with torch.cuda.stream(side):
        side.wait_event(inputs_ready)
        z = op.call()
        work_done.record(side)
    default.wait_event(work_done)
    # z was allocated on the side stream and is now used on the default one: tell the allocator
    z.record_stream(default)
    return z


def run(spec: RunSpec, ctx: Context) -> StreamsResult:
    device = ctx.device
    if device.type == "cuda":
        stream_lab.check_budget(spec)  # refuse before anything runs
    generator = torch.Generator(device=device).manual_seed(spec.seed)
    ctx.progress("making inputs", None, None)
    op = side_op.load(spec, device, generator)
    cuda = device.type == "cuda"
    side = torch.cuda.Stream(device) if cuda else None
    ctx.progress("checking correctness", None, None)
    if cuda:
        consumed = _side_stream(op, side).clone()
        reference = op.call()
        torch.cuda.synchronize(device)
    else:
        consumed, reference = op.call(), op.call()
    diff = (consumed.float() - reference.float()).abs().max().item()
    rtol, atol = op.tolerance
    passed = bool(torch.allclose(consumed, reference, rtol=rtol, atol=atol))
    out_shape = tuple(consumed.shape)
    del consumed, reference
    timings = _timings(spec, ctx, op, side) if passed else ()
    extras = stream_lab.run_cuda_parts(spec, ctx, op, side, generator) if cuda and passed else {}
    if spec.option("sanitizer"):  # last: a child process, after everything this one timed
        extras |= _sanitizer(spec, ctx, cuda)
    return StreamsResult(
        device=str(device),
        streams_supported=cuda,
        max_abs_diff=diff,
        tolerance_passed=passed,
        rtol=rtol,
        atol=atol,
        output_shape=out_shape,
        steps=_steps(op, cuda),
        timings=timings,
        note=_note(op, cuda, passed),
        workload=op.name,
        params=tuple(sorted(spec_params(spec).items())),
        **extras,
    )


def _steps(op: SideOp, cuda: bool) -> tuple[str, ...]:
    if op.seed:
        return STEPS if cuda else ("cpu: z = x @ y", "cpu: compare z with the reference x @ y")
    call = f"{op.name}({', '.join(op.names)})"
    if not cuda:
        return (f"cpu: z = {call}", f"cpu: compare z with the reference {call}")
    rewritten = ", ".join(op.names[: op.fresh]) or "nothing (its first input is not floating)"
    return (
        f"default: produce {rewritten}",
        *STEPS[1:3],
        f"side: z = {call}",
        *STEPS[4:6],
        f"default: consume z, compare with {call} computed on the default stream",
    )


def _timings(spec: RunSpec, ctx: Context, op: SideOp, side) -> tuple[Timing, ...]:
    """Correctness came first: only a right result is worth a speed."""
    cuda = side is not None
    label = HARNESS_LABEL if op.seed else f"default stream {op.name}"
    timed = {label if cuda else f"{op.text} (cpu)": op.call}
    if cuda:
        timed = {"side stream + events": lambda: _side_stream(op, side), **timed}
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
    found, note = run_csan.verdicts(spec, str(ctx.device))
    return {"csan": found, "csan_note": note}


def _note(op: SideOp, cuda: bool, passed: bool) -> str:
    what = "matmul" if op.seed else op.name
    note = (
        f"Side-stream {what} ordered by inputs_ready / work_done events; times are CUDA-event "
        "device times per call."
        if cuda
        else "CUDA streams and events need a GPU: on CPU the lab ran the correctness branch "
        f"({op.text} against the reference) and timed the {what} with the host clock. The "
        "ordering variants, timelines, overlap and event timing need CUDA and were not run."
    )
    return note if passed else "Result outside tolerance: not timed. " + note
