"""A workload's declaration, the part without torch: dims, parameters, presets, dtypes, bound."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

BOUNDS = ("memory", "compute")
ALL_DTYPES = ("float32", "bfloat16", "float16")


@dataclass(frozen=True)
class Preset:
    """A named shape taken from a model config (with the parameters that config fixes)."""

    name: str
    shape: tuple[int, ...]
    params: tuple[tuple[str, int], ...] = ()
    source: str = ""  # which config, and which token count

    @property
    def shape_text(self) -> str:
        return "x".join(str(d) for d in self.shape)


@dataclass(frozen=True)
class WorkloadInfo:
    """What the pages, the CLI and the spec check read; the worker's half is the op module."""

    name: str
    title: str
    look_for: str  # one paragraph: what to look for when this workload runs
    dims: tuple[str, ...]  # named dimensions, in shape order: ("tokens", "hidden")
    default_shape: tuple[int, ...]  # a GPU-sized shape
    cpu_shape: tuple[int, ...]  # a shape a 2-core CPU runs through every mode in seconds
    bound: str  # "memory" | "compute": which roofline ceiling its figure is read against
    formula: str = ""  # the function as one line of maths, for the form and the report
    params: tuple[tuple[str, int], ...] = ()  # fixed parameters and their defaults
    cpu_params: tuple[tuple[str, int], ...] = ()  # the CPU form's (beside cpu_shape)
    presets: tuple[Preset, ...] = ()
    dtypes: tuple[str, ...] = ALL_DTYPES
    dynamic_dims: tuple[str, ...] = ()  # dims that vary in real use (tokens, seq, batch)
    origin: str = "built-in"  # "built-in" | the user's file (issue 29)
    extra: dict[str, str] = field(default_factory=dict)  # free notes, e.g. what it models
    # (dim or param, what it must be a multiple of: a dim, a param or a number), e.g.
    # ("hidden", "heads"): checked with the spec, before anything runs or is stored
    multiple_of: tuple[tuple[str, str | int], ...] = ()
    # why the workload has no backward (a custom op without an autograd formula): a pass
    # with a backward is refused with the spec; empty: it can be differentiated
    no_backward: str = ""
    # the dims of each tensor it makes, where they are not all one tensor's: a GEMM's
    # (("m", "k"), ("k", "n"), ("m", "n")); the lab's element limit applies to the largest
    tensors: tuple[tuple[str, ...], ...] = ()

    @property
    def dims_text(self) -> str:
        return " × ".join(self.dims)

    def param_defaults(self) -> dict[str, int]:
        return dict(self.params)

    def largest_tensor(self, shape: tuple[int, ...]) -> int:
        """Elements of the largest tensor a shape makes (all dims one tensor unless declared)."""
        sizes = dict(zip(self.dims, shape, strict=False))
        groups = self.tensors or (self.dims,)
        return max(math.prod(sizes.get(d, 1) for d in group) for group in groups)

    def preset(self, name: str) -> Preset | None:
        return next((p for p in self.presets if p.name == name.strip().lower()), None)

    def misfit(self, shape: tuple[int, ...], params: dict[str, int]) -> str | None:
        """The first multiple_of rule this shape and these parameters break, as one line."""
        values = {**self.param_defaults(), **params, **dict(zip(self.dims, shape, strict=False))}
        for name, unit in self.multiple_of:
            step = unit if isinstance(unit, int) else values.get(unit)
            if step and values.get(name, 0) % step:
                said = f"{unit} {step}" if isinstance(unit, str) else str(step)
                return f"{name} {values[name]} is not a multiple of {said}; allowed: {name} a multiple of {unit}"
        return None


def shape_text(shape: tuple[int, ...]) -> str:
    return "x".join(str(d) for d in shape)


# model configs the presets come from (hidden, intermediate, heads, kv heads, head_dim, vocab)
LLAMA3_8B = {"hidden": 4096, "intermediate": 14336, "heads": 32, "head_dim": 128, "vocab": 128256}
QWEN25_7B = {"hidden": 3584, "intermediate": 18944, "heads": 28, "head_dim": 128, "vocab": 152064}
LLAMA32_1B = {"hidden": 2048, "intermediate": 8192, "heads": 32, "head_dim": 64, "vocab": 128256}
MODELS = {"llama3-8b": LLAMA3_8B, "qwen2.5-7b": QWEN25_7B, "llama3.2-1b": LLAMA32_1B}
SOURCES = {
    "llama3-8b": "Llama-3-8B config",
    "qwen2.5-7b": "Qwen2.5-7B config",
    "llama3.2-1b": "Llama-3.2-1B config",
}


def model_presets(shape_of, params_of=None, tokens=(4096,)) -> tuple[Preset, ...]:
    """One preset per model config and token count: shape_of(config, tokens) → shape."""
    found = []
    for model, cfg in MODELS.items():
        for n in tokens:
            params = tuple(sorted((params_of(cfg) if params_of else {}).items()))
            name = f"{model}-{n // 1024}k" if n % 1024 == 0 else f"{model}-{n}"
            source = f"{SOURCES[model]}, {n} tokens"
            found.append(Preset(name, tuple(shape_of(cfg, n)), params, source))
    return tuple(found)


@dataclass(frozen=True)
class Workload:
    """A workload declared in a user's file (issue 29): the torch-free info and the worker's
    callables, the same parts a built-in keeps in info.py and op.py."""

    info: WorkloadInfo
    inputs: object  # inputs(shape, params, dtype, device, generator) -> tuple of tensors
    fn: object  # fn(*inputs) -> tensor (a plain Python function: each mode compiles a copy)
    flops: object = None  # flops(shape, params, tensors) -> int; None: not counted
    reference: object = None  # reference(*float64 inputs); None: fn over float64 copies
    tolerances: dict | None = None  # {dtype: (rtol, atol)} over torch.testing's defaults
    # indices of the inputs a training step differentiates; None: every floating input
    grad_inputs: tuple[int, ...] | None = None
