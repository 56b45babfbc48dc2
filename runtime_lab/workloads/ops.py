"""The worker's view of a workload: its inputs, reference, tolerance, bytes and FLOPs (torch)."""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

from runtime_lab.workloads.registry import get, op_module

# (rtol, atol): torch.testing.assert_close's own defaults per dtype; a workload may loosen them
TOLERANCES = {"float32": (1.3e-6, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float16": (1e-3, 1e-5)}
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


@dataclass(frozen=True)
class OpBytes:
    """One aten op eager runs: bytes it reads and writes (views and metadata ops move none)."""

    op: str
    read_bytes: int
    write_bytes: int


@dataclass
class Loaded:
    """A workload ready to run: its op module, parameters and inputs."""

    name: str
    module: ModuleType
    shape: tuple[int, ...]
    params: dict[str, int]
    inputs: tuple

    def call(self):
        return self.module.fn(*self.inputs)

    @property
    def fn(self):
        return self.module.fn


def merged_params(name: str, params: dict | None) -> dict[str, int]:
    """The workload's parameters: its defaults, overridden by those given."""
    return get(name).param_defaults() | dict(params or {})


def load(name: str, shape, dtype: str, device, seed: int, params: dict | None = None) -> Loaded:
    """The workload's inputs from (shape, dtype, device, seed, params), reproducibly."""
    module, merged = op_module(name), merged_params(name, params)
    generator = torch.Generator(device=device).manual_seed(seed)  # the same inputs every run
    made = module.inputs(tuple(shape), merged, DTYPES[dtype], device, generator)
    return Loaded(name, module, tuple(shape), merged, tuple(made))


def upcast(inputs: tuple) -> tuple:
    """Floating tensors as float64 (integer tensors, such as class targets, as they are)."""
    return tuple(
        t.double() if isinstance(t, torch.Tensor) and t.is_floating_point() else t for t in inputs
    )


def reference(work: Loaded) -> torch.Tensor:
    """The higher-precision answer: the op module's reference, else fn over float64 inputs."""
    ref = getattr(work.module, "reference", None)
    return (ref or work.module.fn)(*upcast(work.inputs))


def tolerance(work: Loaded, dtype: str) -> tuple[float, float]:
    return getattr(work.module, "TOLERANCES", {}).get(dtype, TOLERANCES[dtype])


def reduction_lengths(work: Loaded) -> tuple[int, ...]:
    """The length of each reduction on an output element's path (a GEMM's K, a norm's or a
    softmax's row): the op module's reduction_lengths(shape, params), else the last dimension."""
    declared = getattr(work.module, "reduction_lengths", None)
    found = declared(work.shape, work.params) if declared else work.shape[-1:]
    return tuple(int(k) for k in found)


def grad_reduction_lengths(work: Loaded, indices, out) -> tuple[tuple[int, ...], ...]:
    """Per differentiated input (`indices`), the reductions on its gradient's path: the op
    module's grad_reduction_lengths(shape, params) (input index → lengths), else the forward's
    (its backward retraces them) plus, for an input the output is broadcast over (a norm's
    weight against its tokens), the output elements each gradient element sums: the output's
    elements ÷ the input's."""
    forward = reduction_lengths(work)
    declared = getattr(work.module, "grad_reduction_lengths", None)
    given = declared(work.shape, work.params) if declared else {}
    largest = max((t.numel() for t in tree_leaves(out) if isinstance(t, torch.Tensor)), default=0)
    found = []
    for i in indices:
        if i in given:
            found.append(tuple(int(k) for k in given[i]))
            continue
        numel = work.inputs[i].numel()
        summed = largest // numel if 0 < numel < largest and largest % numel == 0 else 1
        found.append(forward + ((summed,) if summed > 1 else ()))
    return tuple(found)


def flops(work: Loaded) -> int:
    """Floating-point operations per call (multiply-add = 2); 0 where it does not declare any."""
    count = getattr(work.module, "flops", None)
    return int(count(work.shape, work.params, work.inputs)) if count else 0


def nbytes(tree) -> int:
    """Bytes of every tensor in a tree (tuples, dicts, lists) by its real size."""
    return sum(
        t.numel() * t.element_size() for t in tree_leaves(tree) if isinstance(t, torch.Tensor)
    )


def ideal_bytes(work: Loaded, out) -> int:
    """The bytes model: each input read once, each output written once."""
    return nbytes(work.inputs) + nbytes(out)


def _aliases(func) -> bool:
    """A view: its output is an input's memory, re-described (it moves no bytes). An in-place
    op also returns an input's memory but reads and writes it: it counts."""
    return bool(getattr(func, "is_view", False))


def eager_call(fn, inputs: tuple) -> tuple[object, tuple[OpBytes, ...]]:
    """fn(*inputs) run eagerly once, with each aten op it ran and the bytes that op read and
    wrote, recorded at the dispatcher on the real tensors (so a GPU's attention records its
    flash kernel, not the math fallback). In eager each such op is one kernel over its
    tensors: the eager side of the bytes model."""
    found: list[OpBytes] = []

    class Record(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            if not _aliases(func):
                read = nbytes((args, kwargs or {}))
                found.append(OpBytes(func.overloadpacket.__name__, read, nbytes(out)))
            return out

    with Record():
        out = fn(*inputs)
    return out, tuple(found)


@dataclass(frozen=True)
class MetaBytes:
    """One eager call's bytes, measured on meta tensors (nothing is allocated)."""

    inputs: int
    output: int
    written: int  # every tensor eager's ops write, the output's included

    @property
    def held(self) -> int:
        """The most one eager call holds at once: its inputs and every tensor it writes."""
        return self.inputs + self.written

    @property
    def moved(self) -> int:
        """What one call reads and writes at least: its inputs and its output."""
        return self.inputs + self.output


def meta_inputs(name: str, shape, dtype: str, params: dict | None = None) -> tuple:
    """The workload's inputs as meta tensors: sizes without memory."""
    merged = merged_params(name, params)
    return tuple(op_module(name).inputs(tuple(shape), merged, DTYPES[dtype], "meta", None))


def meta_bytes(name: str, shape, dtype: str, params: dict | None = None) -> MetaBytes:
    """Inputs, output and eager's writes of one call at this shape, on meta tensors."""
    meta = meta_inputs(name, shape, dtype, params)
    out, eager = eager_call(op_module(name).fn, meta)
    return MetaBytes(nbytes(meta), nbytes(out), sum(op.write_bytes for op in eager))


def footprint(name: str, shape, dtype: str, params: dict | None, outputs: int) -> int:
    """Bytes a fusion job holds at most: the inputs, every tensor eager writes, the float64
    reference of both, and one output per mode; measured on meta tensors (nothing allocated)."""
    call = meta_bytes(name, shape, dtype, params)
    widen = 8 / DTYPES[dtype].itemsize  # the reference runs in float64
    return int(call.held * (1 + widen) + outputs * call.output)
