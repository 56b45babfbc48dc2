"""The allocator's workload on the worker: its inputs per shape, its memory, eager vs compiled peak."""

from __future__ import annotations

import time
from dataclasses import dataclass

import torch

from runtime_lab import passes
from runtime_lab.allocator.result import WorkloadPeak
from runtime_lab.lab import compile_tools as ct
from runtime_lab.lab import saved, training
from runtime_lab.passes import has_backward
from runtime_lab.spec import RunSpec
from runtime_lab.workloads import ops
from runtime_lab.workloads.fit import spec_params
from runtime_lab.workloads.registry import op_module

MAX_ERROR = 600


@dataclass(frozen=True)
class Workload:
    """What every scenario runs: the catalog's name, its parameters and the inputs' seed."""

    name: str = "pointwise"
    params: tuple[tuple[str, int], ...] = ()
    seed: int = 0
    step: str = "fwd"  # the spec's pass; the child processes (A/B, outside) run the forward

    def load(self, shape, dtype: str, device) -> ops.Loaded:
        return ops.load(self.name, shape, dtype, device, self.seed, dict(self.params))

    def caller(self, fn, module):
        """fn as the spec's pass calls it: fn itself for fwd; with a backward, one training
        step of fn over the inputs (training.one_step: the step's memory, the gradients freed
        with it) that returns the output."""
        return training.one_step(fn, module) if has_backward(self.step) else fn

    def run(self, loaded: ops.Loaded, held=None):
        """One call of the pass over loaded's inputs; with a backward, held(saved_bytes) is
        called between forward and backward, while the graph holds what the backward saved:
        the bytes of it that are not the step's inputs (saved.SavedLog's pack hook)."""
        if not has_backward(self.step):
            return loaded.call()
        step = training.step(loaded.fn, loaded.inputs, "fwd_bwd", loaded.module)
        log = saved.SavedLog(step.inputs)
        with log.hooks():
            out = step.run_forward()
        if held is not None:
            held(log.activation_bytes)
        step.run_backward(out)
        return out

    def args(self) -> dict:
        """As a child process's JSON arguments take it (run_ab_child, run_outside_child)."""
        return {"name": self.name, "params": [list(p) for p in self.params], "seed": self.seed}

    @classmethod
    def from_args(cls, data: dict | None) -> Workload:
        if not data:
            return cls()
        return cls(data["name"], tuple((k, int(v)) for k, v in data["params"]), data["seed"])


def of(spec: RunSpec) -> Workload:
    name = spec.option("workload")
    params = ops.merged_params(name, spec_params(spec))
    return Workload(name, tuple(sorted(params.items())), spec.seed, passes.of(spec))


def live_bytes(work: Workload, shape, dtype: str) -> int:
    """The most one eager call can hold at once (inputs and every tensor eager writes)."""
    return ops.meta_bytes(work.name, shape, dtype, dict(work.params)).held


def peak_above(probe, fn, inputs) -> tuple[int | None, object]:
    """Peak allocated during fn(*inputs) above what was live before it (the inputs)."""
    probe.sync()
    before = probe.stat("allocated_bytes.all.current")
    probe.reset_peak()
    out = fn(*inputs)
    probe.sync()
    peak = probe.stat("allocated_bytes.all.peak")
    return (None if peak is None or before is None else peak - before), out


def _diff(out, eager) -> float | None:
    """max |compiled − eager|, in float32 unless the outputs are wider: float64 copies of an
    8192² output held 1.5 GiB more than the workload (the peak of a CPU run's host RSS)."""
    if not (torch.is_tensor(out) and torch.is_tensor(eager)):
        return None
    wide = torch.promote_types(torch.promote_types(out.dtype, eager.dtype), torch.float32)
    return (out.to(wide) - eager.to(wide)).abs_().max().item()


def one_shape(probe, compiled, work: Workload, call, label: str, i: int) -> WorkloadPeak:
    """On CUDA: eager once unmeasured (lazy state such as cuBLAS's workspace is not its peak),
    eager measured; compiled once warm (its compile and first-call buffers are not its peak),
    then measured. Peaks reset before each measured call. On CPU one call of each."""
    shape, dtype = call
    loaded = work.load(shape, dtype, probe.device)
    # the spec's pass: with a backward, each call is a training step (its peak: the step's)
    eager, compiled = work.caller(loaded.fn, loaded.module), work.caller(compiled, loaded.module)
    if probe.cuda:  # the CPU has no peak to read: one call of each is all it needs
        eager(*loaded.inputs)  # dropped at once
    eager_peak, eager_out = peak_above(probe, eager, loaded.inputs)
    probe.mark("compiled", i, f"eager {label}", "one call")
    before = ct.compile_records()
    start = time.perf_counter()
    warm = compiled(*loaded.inputs)
    probe.sync()
    warm_s = time.perf_counter() - start
    probe.mark("compiled", i, f"compile {label}", "warm call")
    compiled_peak, out = None, warm
    if probe.cuda:
        del warm
        compiled_peak, out = peak_above(probe, compiled, loaded.inputs)
        probe.mark("compiled", i, f"compiled {label}", "one call")
    return WorkloadPeak(
        label,
        tuple(shape),
        dtype,
        ops.nbytes(loaded.inputs),
        ops.nbytes(eager_out),
        eager_peak,
        compiled_peak,
        warm_s,
        len(ct.new_records(before)),
        _diff(out, eager_out),
    )


def peaks(probe, work: Workload, calls, labels) -> tuple[WorkloadPeak, ...]:
    """One WorkloadPeak per distinct (shape, dtype) of the sequence, in its order; torch.compile
    as a user calls it (dynamic=None: a second shape may recompile with dynamic dims)."""
    fn = op_module(work.name).fn
    # its own code object: Dynamo's cache of an earlier run (or scenario) does not serve it
    own = ct.own_copy(fn, f"{work.name}_peaks") if hasattr(fn, "__code__") else fn
    compiled = torch.compile(own)
    found, seen = [], set()
    for (shape, dtype), label in zip(calls, labels, strict=True):
        if (shape, dtype) in seen:
            continue
        seen.add((shape, dtype))
        try:
            found.append(one_shape(probe, compiled, work, (shape, dtype), label, len(seen)))
        except Exception as exc:  # e.g. OOM at the largest shape: the others still stand
            if "CUDA error" in str(exc):
                raise
            error = f"{type(exc).__name__}: {exc}"[:MAX_ERROR]
            found.append(WorkloadPeak(label, tuple(shape), dtype, error=error))
            probe.clean()  # else the cache stays full (kept otherwise: the segments snapshot)
    return tuple(found)
