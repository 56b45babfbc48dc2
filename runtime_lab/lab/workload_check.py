"""A user workload tried small on the CPU before its job touches the GPU (worker side, torch)."""

from __future__ import annotations

import math

import torch

from runtime_lab.lab import base
from runtime_lab.workloads import ops
from runtime_lab.workloads.registry import get

CPU_CHECK_BYTES = 2**30  # a cpu_shape is tried before every job: it must stay small
WIDEN = 1 + 8 / 4  # float32 inputs and the reference's float64 copies of them


class WorkloadRejected(Exception):
    """The workload failed its check; the message says what and at which shape."""


def _dtype(name: str) -> str:
    allowed = get(name).dtypes
    return "float32" if "float32" in allowed else allowed[0]


def check(name: str) -> None:
    """inputs() on meta (the lab sizes every job on meta tensors first), then one call at the
    workload's CPU shape and parameters on the CPU: a tensor, finite, of the reference's shape
    and close to it. Raises WorkloadRejected with one line."""
    info = get(name)
    params = info.param_defaults() | dict(info.cpu_params)
    shape, dtype = info.cpu_shape, _dtype(name)
    at = f"at its cpu_shape {'x'.join(map(str, shape))} {dtype} on cpu"
    size_check(name)
    try:
        work = ops.load(name, shape, dtype, torch.device("cpu"), 0, params)
    except Exception as exc:
        raise WorkloadRejected(
            f"{name}: inputs() raised {type(exc).__name__}: {exc} ({at})"
        ) from None
    if not work.inputs or not all(isinstance(t, torch.Tensor) for t in work.inputs):
        raise WorkloadRejected(f"{name}: inputs() must return a tuple of tensors ({at})")
    out = _call(name, "fn", lambda: work.call(), at)
    ref = _call(name, "the reference", lambda: ops.reference(work), at)
    _compare(name, out, ref, ops.tolerance(work, dtype), at)


def size_check(name: str) -> None:
    """inputs() on meta at the default and the CPU shape, before anything is allocated: the
    CPU shape's inputs, which the check then builds for real, must fit CPU_CHECK_BYTES and the
    host's free RAM. Raises WorkloadRejected with one line."""
    info = get(name)
    dtype = _dtype(name)
    try:
        ops.meta_inputs(name, info.default_shape, dtype)
        small = ops.meta_inputs(name, info.cpu_shape, dtype, dict(info.cpu_params))
    except Exception as exc:
        raise WorkloadRejected(
            f"{name}: inputs() failed on device='meta' (generator=None), which the lab uses to "
            f"size a job before allocating it: {type(exc).__name__}: {exc}"
        ) from None
    needed = ops.nbytes(small) * WIDEN  # the inputs, and the reference's float64 copies
    limit = min(CPU_CHECK_BYTES, base.free_bytes(torch.device("cpu")) * base.FIT_FRACTION)
    if needed > limit:
        raise WorkloadRejected(
            f"{name}: its cpu_shape {'x'.join(map(str, info.cpu_shape))} needs about "
            f"{needed / base.GIB:.2f} GiB for its check on the CPU (inputs and their float64 "
            f"copies); allowed: at most {limit / base.GIB:.2f} GiB: declare a smaller cpu_shape"
        )


def _call(name: str, what: str, call, at: str) -> torch.Tensor:
    try:
        out = call()
    except Exception as exc:
        raise WorkloadRejected(
            f"{name}: {what} raised {type(exc).__name__}: {exc} ({at})"
        ) from None
    if not isinstance(out, torch.Tensor):
        raise WorkloadRejected(f"{name}: {what} returned {type(out).__name__}, not a tensor ({at})")
    return out


def _compare(name: str, out: torch.Tensor, ref: torch.Tensor, tol, at: str) -> None:
    if tuple(out.shape) != tuple(ref.shape):
        raise WorkloadRejected(
            f"{name}: fn returned shape {tuple(out.shape)}, the reference {tuple(ref.shape)} ({at})"
        )
    if not out.is_floating_point():
        raise WorkloadRejected(f"{name}: fn returned {out.dtype}, not a floating tensor ({at})")
    bad = int((~torch.isfinite(out)).sum())
    if bad:
        raise WorkloadRejected(
            f"{name}: fn returned {bad} NaN or infinite values of {math.prod(out.shape)} ({at})"
        )
    rtol, atol = tol
    if not torch.allclose(out.double(), ref.double(), rtol=rtol * 10, atol=atol * 10):
        worst = float((out.double() - ref.double()).abs().max())
        raise WorkloadRejected(
            f"{name}: fn differs from its reference by up to {worst:.3g} ({at}); "
            f"allowed rtol {rtol * 10:g}, atol {atol * 10:g}"
        )
