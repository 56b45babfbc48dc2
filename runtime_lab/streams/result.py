"""Typed results of the streams experiment: variants with trials, timelines, overlap, event timing."""

from __future__ import annotations

from dataclasses import dataclass

from runtime_lab.results import Timing

# the harness's timing of the side-stream matmul on the default stream: the run names it, the
# event-timing frame looks it up
HARNESS_LABEL = "default stream x @ y"
HARNESS_PREFIX = "default stream "  # a workload's: "default stream rms_norm"
# the overlap case whose two chains are serialised through the default stream
HIDDEN_DEPENDENCY_LABEL = "two streams + default-stream op between"


@dataclass(frozen=True)
class KernelSpan:
    """One kernel (or memcpy/memset) on the device, placed on the lab's stream lane."""

    name: str
    lane: str  # the lab's name for the stream ("default", "side", …) or "stream <id>"
    stream_id: int  # the profiler's (CUPTI) stream id, not torch's Stream.stream_id
    start_us: float  # relative to the start of the profiled section
    end_us: float
    category: str  # kernel | gpu_memcpy | gpu_memset


@dataclass(frozen=True)
class HostCall:
    """A CUDA runtime call on the host: how long the host was busy (or blocked) issuing it."""

    name: str  # e.g. cudaStreamWaitEvent, cudaEventSynchronize, cudaDeviceSynchronize
    lane: str  # the stream the call was issued for, or "host" for whole-device syncs
    start_us: float
    end_us: float


@dataclass(frozen=True)
class Mark:
    """An event record or wait as the lab issued it: host issue time and inferred device time."""

    kind: str  # record | wait | wait_stream | sync
    label: str  # the lab's name for the event, e.g. inputs_ready
    lane: str
    host_us: float
    device_us: float | None  # when it completes (record) or releases its stream (wait)


@dataclass(frozen=True)
class SyncRecord:
    """One of the profiler's own synchronisation records (enable_cuda_sync_events)."""

    kind: str  # Stream Wait Event | Event Sync | Stream Sync | Context Sync
    lane: str  # the waiting stream's lab lane, "host" for host-side syncs, or "stream <id>"
    host_us: float  # when the host issued it, relative to the section's start
    duration_us: float
    event_id: int | None  # the CUDA event waited on (wait_on_cuda_event_id), None if not given
    wait_on_stream: int | None  # the stream whose record is awaited; -1: left unresolved
    record_correlation: int | None  # the awaited record's correlation id; -1: unresolved
    call: str | None = None  # the runtime call it belongs to (same correlation id)
    call_us: float | None = None  # when that call began: the lab's mark of it has this time


@dataclass(frozen=True)
class Timeline:
    kernels: tuple[KernelSpan, ...]
    host_calls: tuple[HostCall, ...]
    marks: tuple[Mark, ...]
    lane_streams: tuple[tuple[str, int], ...]  # lab lane → profiler stream id, as mapped
    syncs: tuple[SyncRecord, ...] = ()  # the profiler's sync records; () when it wrote none


@dataclass(frozen=True)
class VariantResult:
    """One ordering of the seed's workload, repeated with fresh random inputs."""

    variant: str
    description: str
    expected_correct: bool  # does the ordering guarantee the result?
    trials: int
    mismatches: int  # trials outside tolerance against the default-stream reference
    diffs: tuple[float, ...]  # max |consumed − reference| per trial
    reused_block: int  # early-free variants: trials where a new tensor got the freed block
    host_ms: tuple[float, ...]  # host time to issue one trial (blocking calls included)
    device_ms: tuple[float, ...]  # CUDA-event time of one trial on the default stream
    timeline: Timeline | None
    error: str | None = None
    nonfinite_trials: int = 0  # trials whose consumed z held NaN or inf (garbage memory)


@dataclass(frozen=True)
class OverlapCase:
    """Two independent workloads: on two streams at once vs one after the other on one stream."""

    label: str
    size: int  # square matmul size of each kernel
    kernels_per_stream: int
    serial_ms: tuple[float, ...]
    concurrent_ms: tuple[float, ...]
    overlap_pct: float | None  # time both lanes are busy / time either lane is busy (profiled run)
    timeline: Timeline | None  # the concurrent arrangement, profiled
    serial_timeline: Timeline | None = None
    # the two chains launched with a default-stream op between them (each side stream waits on
    # the default stream): concurrent_ms, overlap_pct and timeline are of that arrangement
    hidden_dependency: bool = False
    shape: tuple[int, ...] = ()  # a workload's shape per call (size is then 0); (): the seed's


@dataclass(frozen=True)
class HostBlocking:
    """Host time of calls that only enqueue vs calls that wait for the device (µs per call)."""

    call: str
    blocks: bool
    host_us: tuple[float, ...]
    queued_ms: float  # device work queued ahead of the call


@dataclass(frozen=True)
class CsanAccess:
    """One side of a conflict CSAN found: which stream, which ATen op, read or write, where."""

    stream: str  # the lab's lane (default, side) or the raw stream handle
    operator: str  # the op's schema name, e.g. aten::mm
    access: str  # read | write
    aliases: tuple[str, ...]  # the op's argument names the tensor was passed as
    is_output: bool
    user_line: str | None  # innermost frame in the lab's ordering code


@dataclass(frozen=True)
class CsanRace:
    tensor: str  # x, y, or where the tensor was allocated
    current: CsanAccess  # the access CSAN could not order after…
    previous: CsanAccess  # …this earlier one on another stream


@dataclass(frozen=True)
class CsanVerdict:
    """The CUDA sanitizer's verdict on one ordering, from a child process under CSAN."""

    variant: str
    verdict: str  # race | clean | error
    races: tuple[CsanRace, ...]
    trials: int
    error: str | None = None


@dataclass(frozen=True)
class StreamsResult:
    """The seed's side-stream matmul: correctness against a default-stream reference, then time."""

    device: str
    streams_supported: bool
    max_abs_diff: float
    tolerance_passed: bool
    rtol: float
    atol: float
    output_shape: tuple[int, ...]
    steps: tuple[str, ...]
    timings: tuple[Timing, ...]
    note: str
    variants: tuple[VariantResult, ...] = ()
    delay_ms: float = 0.0
    sleep_cycles_per_ms: float = 0.0
    overlap: tuple[OverlapCase, ...] = ()
    host_blocking: tuple[HostBlocking, ...] = ()
    event_ms: tuple[float, ...] = ()  # Event(enable_timing=True).elapsed_time of the matmul
    blocking_timeline: Timeline | None = None  # one profiled round of the host-blocking calls
    trace_file: str | None = None
    csan: tuple[CsanVerdict, ...] = ()  # the sanitizer's verdict per ordering; () not asked
    csan_note: str = ""  # how CSAN ran, or why there are no verdicts
    # "on": the profiled trials asked for the profiler's CUDA sync records; else why not ("" old)
    sync_events: str = ""
    # the side stream's op: the seed's x @ y ("matmul") or a catalog workload ("" stored before)
    workload: str = ""
    params: tuple[tuple[str, int], ...] = ()  # the workload's parameters as run


def harness(result: StreamsResult) -> Timing | None:
    """The lab harness's timing of the side-stream op on the default stream, if it ran."""
    return next((t for t in result.timings if t.label.startswith(HARNESS_PREFIX)), None)


def op_timing(result: StreamsResult) -> Timing | None:
    """The op's own time: the harness's on a GPU, the host clock's on CPU (its one timing)."""
    cpu = [t for t in result.timings if t.label.endswith(" (cpu)")]
    return harness(result) or (cpu[0] if cpu else None)


RESULT_TYPE = StreamsResult  # what the registry rebuilds a stored run into
