"""RunSpec: what to run, as a frozen dataclass of plain values, plus parsing and validation."""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from runtime_lab import marks
from runtime_lab.options import OptionSpec
from runtime_lab.passes import no_backward
from runtime_lab.quote import cut, given, quote
from runtime_lab.registry import EXPERIMENTS
from runtime_lab.shapes import (
    DTYPES,
    NON_ASCII_DIGITS,
    canonical,
    parse_shape,
)
from runtime_lab.workloads.fit import any_shape, check_name, fit_spec
from runtime_lab.workloads.registry import WORKLOADS

WARMUP_RANGE = (0, 1000)
REPEAT_RANGE = (1, 10000)
DEVICE_HELP = "auto, cpu, cuda or cuda:N (N a GPU index)"
_DEVICE_RE = re.compile(r"^(auto|cpu|cuda|cuda:([0-9]{1,2}))$")  # ASCII digits only


class SpecError(ValueError):
    """Invalid input; `problems` maps each bad field to a message saying what is allowed."""

    def __init__(self, problems: dict[str, str]):
        self.problems = dict(problems)
        super().__init__("; ".join(f"{k}: {v}" for k, v in self.problems.items()))


@dataclass(frozen=True)
class RunSpec:
    """One experiment run. Options are (name, value) pairs sorted by name so specs compare."""

    experiment: str
    shape: tuple[int, ...]
    dtype: str = "float32"
    device: str = "auto"
    warmup: int = 10
    repeat: int = 50
    l2_flush: bool = True
    seed: int = 0
    options: tuple[tuple[str, Any], ...] = field(default_factory=tuple)

    def option(self, name: str) -> Any:
        """An experiment option's value (validation filled in every default)."""
        return dict(self.options)[name]

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def shape_text(self) -> str:
        return "x".join(str(d) for d in self.shape)

    @property
    def label(self) -> str:
        opts = " ".join(f"{k}={v}" for k, v in self.options)
        return f"{self.experiment} {self.shape_text} {self.dtype} {self.device} {opts}".strip()

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["shape"] = list(self.shape)
        data["options"] = dict(self.options)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunSpec:
        """Rebuild and re-validate a spec from its dict form (history, CLI, worker)."""
        return build_spec(**data)

    def key(self) -> str:
        """A stable digest: identical specs share it, so a queued twin is joined, not re-run."""
        text = json.dumps(self.to_dict(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def _int_in(name: str, value: Any, lo: int, hi: int, problems: dict[str, str]) -> int:
    try:
        if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
            raise ValueError
        if isinstance(value, str) and not re.fullmatch(r"[+-]?[0-9]+", value.strip()):
            raise ValueError
        text = str(value).strip() if isinstance(value, str) else ""
        number = (int(text) if len(text) <= 30 else hi + 1) if text else int(value)
    except (TypeError, ValueError, OverflowError):
        digits = isinstance(value, str) and value.strip().isdigit() and not value.isascii()
        what = NON_ASCII_DIGITS if digits else "is not an integer"
        problems[name] = f"{_show(value)} {what}; allowed {lo} to {hi}"
        return lo
    if not lo <= number <= hi:  # the value as typed: "+05000", not the 5000 parsed from it
        problems[name] = f"{given(value)} is out of range; allowed {lo} to {hi}"
    return number


def _show(value: Any) -> str:
    """A value echoed in a message: quoted, one line, cut with its length said (quote.py)."""
    return quote(value) if isinstance(value, str) else cut(repr(value))


def _bool(name: str, value: Any, problems: dict[str, str]) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    problems[name] = f"{_show(value)} is not a yes/no value; allowed true or false"
    return False


MAX_SIZES = 12


def _multi(name: str, spec: OptionSpec, value: Any, problems: dict[str, str]) -> str:
    """A non-empty subset of the choices, canonical: comma-joined in the choices' order."""
    items = value if isinstance(value, (list, tuple)) else str(value).split(",")
    picked = {str(i).strip() for i in items if str(i).strip()}
    unknown = sorted(picked - set(spec.choices))
    if unknown or not picked:
        what = f"{', '.join(map(repr, unknown))} not allowed" if unknown else "nothing chosen"
        problems[name] = f"{what}; allowed (one or more): {', '.join(spec.choices)}"
    return ",".join(c for c in spec.choices if c in picked)


def _sizes(name: str, spec: OptionSpec, value: Any, problems: dict[str, str]) -> str:
    """Up to 12 integers in [low, high], canonical: comma-joined; empty means none."""
    items = value if isinstance(value, (list, tuple)) else re.split(r"[,\s]+", str(value).strip())
    items = [str(i).strip() for i in items if str(i).strip()]
    allowed = f"up to {MAX_SIZES} integers from {spec.low} to {spec.high}, e.g. 256,1024,4096"
    if len(items) > MAX_SIZES or not all(re.fullmatch(r"[0-9]{1,9}", i) for i in items):
        problems[name] = f"{_show(value)} is not a size list; allowed: {allowed}"
        return ""
    sizes = [int(i) for i in items]
    if any(not spec.low <= s <= spec.high for s in sizes):
        problems[name] = f"{_show(value)} has a size out of range; allowed: {allowed}"
    return ",".join(str(s) for s in sizes)


def _shapes(name: str, value: Any, problems: dict[str, str]) -> str:
    """A shape sequence, canonical: presets expanded, one entry per call, comma-joined."""
    try:
        return canonical(value)
    except ValueError as exc:
        problems[name] = f"{_show(value)} {exc}"
        return ""


def _marks(name: str, value: Any, problems: dict[str, str]) -> str:
    """Input axes to mark dynamic, canonical: 'x:0,y:0'; empty means none."""
    try:
        return marks.text(marks.parse("" if value is None else str(value)))
    except ValueError as exc:
        problems[name] = str(exc)
        return ""


def _renamed(renamed: dict[str, str], given: dict[str, Any]) -> dict[str, Any]:
    """Options under the names they had when older runs and links were made."""
    for old, new in renamed.items():
        if old in given and new not in given:
            given[new] = given.pop(old)
    return given


def _option(name: str, spec: OptionSpec, value: Any, problems: dict[str, str]) -> Any:
    if spec.kind in ("params", "dims"):  # checked against the workload in build_spec
        return "" if value is None else str(value).strip()
    if spec.kind == "workload":
        return check_name(name, value, problems)
    if spec.kind == "marks":
        return _marks(name, value, problems)
    if spec.kind == "shapes":
        return _shapes(name, value, problems)
    if spec.kind == "multi":
        return _multi(name, spec, value, problems)
    if spec.kind == "sizes":
        return _sizes(name, spec, value, problems)
    if spec.choices:
        if value not in spec.choices:
            problems[name] = f"{_show(value)} is not allowed; allowed: {', '.join(spec.choices)}"
        return value
    if spec.kind == "bool":
        return _bool(name, value, problems)
    return _int_in(name, value, spec.low, spec.high, problems)


def build_spec(
    experiment: str,
    shape: Any,
    dtype: str = "float32",
    device: str = "auto",
    warmup: Any = 10,
    repeat: Any = 50,
    l2_flush: Any = True,
    seed: Any = 0,
    options: dict[str, Any] | None = None,
) -> RunSpec:
    """Validate every field and return a RunSpec, or raise SpecError naming each bad field."""
    problems: dict[str, str] = {}
    if experiment not in EXPERIMENTS:
        problems["experiment"] = (
            f"{_show(experiment)} is unknown; allowed: {', '.join(EXPERIMENTS)}"
        )
        raise SpecError(problems)
    info = EXPERIMENTS[experiment]
    sequence = info.option_of("shapes")
    workload = info.option_of("workload")
    # with a shape sequence the main shape is ignored: the run records the sequence's first;
    # with a workload its dims decide (a preset's name is a shape too): checked below
    dims = any_shape(shape, problems) if sequence is None and workload is None else (1,)
    if dtype not in DTYPES:
        problems["dtype"] = f"{_show(dtype)} is not supported; allowed: {', '.join(DTYPES)}"
    device = str(device).strip().lower() if isinstance(device, str) else device
    if not isinstance(device, str) or not _DEVICE_RE.match(device):
        problems["device"] = f"{_show(device)} is not a device; allowed: {DEVICE_HELP}"
    spec_warmup = _int_in("warmup", warmup, *WARMUP_RANGE, problems)
    spec_repeat = _int_in("repeat", repeat, *REPEAT_RANGE, problems)
    spec_seed = _int_in("seed", seed, 0, 2**31 - 1, problems)
    flush = _bool("l2_flush", l2_flush, problems)
    given = _renamed(info.renamed, dict(options or {}))
    for unknown in sorted(set(given) - set(info.options)):
        allowed = ", ".join(info.options) or "none"
        problems[unknown] = f"is not an option of {experiment}; its options: {allowed}"
    opts = {
        name: _option(name, ospec, given.get(name, ospec.default), problems)
        for name, ospec in info.options.items()
    }
    if workload is not None and workload not in problems:
        dims = fit_spec(info, opts, given, shape, dtype, problems) or dims
        why = no_backward(opts.get("pass", "fwd"), WORKLOADS[opts[workload]])
        if why and "pass" not in problems:
            problems["pass"] = why
    if problems:
        raise SpecError(problems)
    if sequence is not None:
        dims = parse_shape(re.split(r"[,:]", opts[sequence])[0])
    return RunSpec(
        experiment=experiment,
        shape=dims,
        dtype=dtype,
        device=device,
        warmup=spec_warmup,
        repeat=spec_repeat,
        l2_flush=flush,
        seed=spec_seed,
        options=tuple(sorted(opts.items())),
    )


COMMON_FIELDS = ("shape", "dtype", "device", "warmup", "repeat", "l2_flush", "seed")


def spec_from_values(experiment: str, values: dict[str, Any]) -> RunSpec:
    """build_spec from one flat dict, as a form or a link holds it: the common fields by name,
    every other key an option. Raises SpecError like build_spec."""
    options = dict(values)
    common = {k: options.pop(k) for k in COMMON_FIELDS if k in options}
    shape = common.pop("shape", _default_shape(EXPERIMENTS[experiment], options))
    return build_spec(experiment, shape, **common, options=options)


def _default_shape(info, options: dict[str, Any]) -> Any:
    """The experiment's default shape; with a workload chosen, None: the workload's own."""
    workload = info.option_of("workload")
    chosen = options.get(workload) if workload else None
    return None if chosen and chosen not in info.own_shapes else info.default_shape


def check_against_env(spec: RunSpec, env: dict[str, Any] | None) -> dict[str, str]:
    """Problems only the machine can reveal: no GPU, a GPU index that isn't there, no bf16."""
    if not env:
        return {}
    gpus = env.get("gpus") or []
    if spec.device == "cuda" or spec.device.startswith("cuda:"):
        if not gpus:
            return {
                "device": f"{spec.device!r} needs CUDA, but this machine has no GPU; use cpu or auto"
            }
        index = int(spec.device.split(":")[1]) if ":" in spec.device else 0
        if index >= len(gpus):
            allowed = ", ".join(f"cuda:{i}" for i in range(len(gpus)))
            return {
                "device": f"{spec.device!r}: this machine has {len(gpus)} GPU(s); allowed: {allowed}"
            }
        if spec.dtype == "bfloat16" and not gpus[index].get("bf16_supported", True):
            return {
                "dtype": f"bfloat16 is not supported on {gpus[index].get('name')}; use float16 or float32"
            }
    return {}
