"""Typed results: frozen dataclasses of plain values (raw samples kept, statistics derived)."""

from __future__ import annotations

import dataclasses
import functools
import statistics
import types
import typing
from dataclasses import dataclass
from typing import Any

NOISY_IQR_FRACTION = 0.10
# Other processes busy on more than this share of the host's cores during a timed phase: the
# worker's host-side work (dispatch, launches, CPU kernels) competed for the CPU
CONTENDED_OTHERS_PCT = 25.0


@dataclass(frozen=True)
class Stats:
    """Derived from raw samples; never stored on its own."""

    median: float
    q1: float
    q3: float
    iqr: float
    minimum: float
    maximum: float
    count: int

    @property
    def noisy(self) -> bool:
        """IQR above 10 % of the median: the figure should not be quoted without its spread."""
        return self.median > 0 and self.iqr / self.median > NOISY_IQR_FRACTION


def stats(samples: typing.Sequence[float]) -> Stats | None:
    """Median, quartiles and IQR of samples (None when there are none)."""
    values = sorted(float(s) for s in samples)
    if not values:
        return None
    if len(values) == 1:
        q1 = q3 = values[0]
    else:
        q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return Stats(
        median=statistics.median(values),
        q1=q1,
        q3=q3,
        iqr=q3 - q1,
        minimum=values[0],
        maximum=values[-1],
        count=len(values),
    )


@dataclass(frozen=True)
class GpuState:
    """The GPU's clock and power over one timed phase (NVML): a figure taken while the power
    cap held the clock down is slower than the same kernel on a cooler card, and two figures
    taken at different clocks differ by that much before any code does."""

    sm_clock_mhz: tuple[float, ...]  # the SM clock sampled over the phase, raw
    sm_clock_max_mhz: float | None  # the card's highest SM clock
    power_w: float | None  # average over the phase, from the energy counter
    power_limit_w: float | None  # the limit the driver enforces
    # the share of the phase NVML counted as clock-limited by the power cap / by temperature
    power_capped_pct: float | None = None
    thermal_capped_pct: float | None = None

    @property
    def median_clock_mhz(self) -> float | None:
        return statistics.median(self.sm_clock_mhz) if self.sm_clock_mhz else None

    @property
    def clock_fraction(self) -> float | None:
        """The median SM clock as a share of the card's highest (1.0: not held down)."""
        median = self.median_clock_mhz
        return median / self.sm_clock_max_mhz if median and self.sm_clock_max_mhz else None


@dataclass(frozen=True)
class Timing:
    """One timed callable. The first call is timed apart and never part of the samples."""

    label: str
    clock: str  # "cuda-events" (device time) or "host-wall" (CPU: the call is synchronous)
    device_ms: tuple[float, ...]  # per call, CUDA events; empty on CPU
    host_ms: tuple[float, ...]  # per call, host wall time spent issuing the call
    first_call_ms: float
    warmup: int
    repeat: int
    l2_flush: bool
    # over the timed samples (psutil): other processes' CPU time as a share of all the host's
    # cores, and this process's; None where the phase was too short to tell or before this
    cpu_others_pct: float | None = None
    cpu_self_pct: float | None = None
    gpu: GpuState | None = None  # CUDA with NVML: the clock and power over the samples

    @property
    def contended(self) -> bool:
        """Others took more than CONTENDED_OTHERS_PCT of the cores while this was timed."""
        return self.cpu_others_pct is not None and self.cpu_others_pct > CONTENDED_OTHERS_PCT

    @property
    def primary_ms(self) -> tuple[float, ...]:
        """The samples that answer "how long does a call take": device time where there is one."""
        return self.device_ms or self.host_ms


@dataclass(frozen=True)
class KernelRow:
    """One kernel (CUDA) or op (CPU) name, aggregated over the profiled warm calls."""

    name: str
    calls_per_run: float  # launches per call of the workload
    total_us: float  # device (CUDA) or self CPU time per call of the workload
    mean_us: float  # per launch
    stream: int | None = None
    grid: str | None = None
    block: str | None = None
    registers: int | None = None
    # CUDA, the profiler trace's kernel args (None on CPU and in older runs)
    shared_memory_bytes: int | None = None  # per block, static + dynamic as the trace sums them
    profiler_blocks_per_sm: float | None = None  # grid blocks ÷ SMs: not what is resident
    profiler_warps_per_sm: float | None = None  # that × warps per block
    profiler_occupancy_pct: float | None = None  # Kineto's estimate (occupancy.profiler_estimate)
    bytes_per_launch: int | None = None  # from the experiment's bytes model, where it has one


@dataclass(frozen=True)
class TritonKernel:
    """A generated Triton kernel's compiled metadata (Inductor's launcher) for the config it ran."""

    name: str
    num_warps: int | None = None
    num_stages: int | None = None
    registers: int | None = None  # n_regs
    spilled_registers: int | None = None  # n_spills
    shared_bytes: int | None = None  # per block; Triton launches it as dynamic shared memory
    config: str = ""  # its block sizes and launch options, e.g. "XBLOCK=1024, num_warps=4"


@dataclass(frozen=True)
class CompileLatency:
    """One way of paying for compilation; phase times from get_compilation_metrics()."""

    scenario: str  # cold | warm-cache | warm-process | fresh-process | mega-cache | first call
    first_call_s: float | None  # None: not measured (the detail says why, e.g. torch too old)
    dynamo_s: float | None = None
    aot_s: float | None = None
    inductor_s: float | None = None
    codegen_s: float | None = None
    triton_s: float | None = None
    fx_cache_hits: int = 0
    fx_cache_misses: int = 0
    aot_cache_hits: int = 0
    aot_cache_misses: int = 0
    compiles: int = 0
    detail: str = ""
    # mega-cache: size of the portable artefacts torch.compiler.save_cache_artifacts() gave;
    # None in other scenarios and in runs recorded before it
    artifact_bytes: int | None = None
    # issue 49: the compile cache it ran with (None and () in runs recorded before): "empty",
    # cache folders made for it (or a child's own); "persistent", the worker's (the data
    # directory's: earlier runs of this lab may have filled them)
    cache_dirs: str | None = None
    cache_entries_before: int | None = None  # FX graph + AOTAutograd entries there before it
    cache_hit_keys: tuple[str, ...] = ()  # FX graph and AOTAutograd cache keys it found
    cache_miss_keys: tuple[str, ...] = ()  # ... and those it did not (compiled, then written)
    # the cache tokens of the jobs that wrote the entries it found, from the lab's record of
    # writers in the cache folder ("": an entry the lab has no writer for)
    cache_writers: tuple[str, ...] = ()
    warm_from_runs: tuple[int, ...] = ()  # this lab's stored runs whose jobs wrote them
    # the stored run that measured it, where the run holding it took its compile records from
    # there (fusion's compile_from_run); None: measured by the run that holds it
    measured_in_run: int | None = None


def to_plain(result: Any) -> dict[str, Any]:
    """A result dataclass as JSON-ready dicts and lists."""
    return dataclasses.asdict(result)


def from_plain(cls: type, data: Any) -> Any:
    """Rebuild a (nested) result dataclass from its JSON form, following its type hints."""
    return _build(cls, data)


@functools.cache
def field_hints(cls: type) -> dict[str, Any]:
    """A result dataclass's fields and their type hints, resolved once per class: resolving
    them per object made rebuilding a large result (100,000 trace points) take seconds."""
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls)}


def _build(tp: Any, value: Any) -> Any:
    if value is None:
        return None
    if dataclasses.is_dataclass(tp):
        hints = field_hints(tp)
        return tp(**{k: _build(hints[k], v) for k, v in value.items() if k in hints})
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is tuple:
        inner = args[0] if args else Any
        return tuple(_build(inner, v) for v in value)
    if origin in (typing.Union, types.UnionType):
        real = [a for a in args if a is not type(None)]
        return _build(real[0], value) if len(real) == 1 else value
    return value
