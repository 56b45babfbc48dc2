"""Typed results of the allocator experiment: per-step stats, trace curves, host RSS, scenarios."""

from __future__ import annotations

from dataclasses import dataclass

SCENARIOS = ("sequence", "compiled", "empty-cache", "side-stream", "cudagraphs")
CUDA_ONLY = ("empty-cache", "side-stream", "cudagraphs")  # nothing to show without a GPU


@dataclass(frozen=True)
class StepRecord:
    """torch.cuda.memory_stats at one point of a scenario (None on CPU: no caching allocator)."""

    scenario: str
    index: int  # 1-based step within the scenario; 0 for points outside a step
    label: str  # what ran, e.g. "8192x8192" or "eager"
    event: str  # "computed" | "after del" | "after empty_cache" | …
    t_s: float  # seconds since the run started (the axis of every curve)
    rss_bytes: int  # worker + child processes, at this moment
    allocated_bytes: int | None = None
    reserved_bytes: int | None = None
    peak_bytes: int | None = None  # max allocated since the step began (peaks reset per step)
    inactive_split_bytes: int | None = None  # free blocks inside split segments
    step_ms: float | None = None  # wall time of the step (synchronised)
    # at a training step's "forward (activations held)" mark: the bytes the forward saved for
    # its backward besides the step's inputs (autograd's pack hook, each storage once)
    saved_bytes: int | None = None


@dataclass(frozen=True)
class TracePoint:
    """Integrated from the snapshot's device_traces, on the run's time axis."""

    scenario: str
    t_s: float
    allocated_bytes: int
    reserved_bytes: int
    pending_free_bytes: int
    action: str


@dataclass(frozen=True)
class RssSample:
    t_s: float
    rss_bytes: int  # worker + children (Inductor compiles in subprocesses)
    children: int


@dataclass(frozen=True)
class StreamBytes:
    stream: str  # "default" or the side stream's id
    reserved_bytes: int  # segments owned by the stream at the snapshot
    peak_allocated_bytes: int  # most its allocations held at once while recording


@dataclass(frozen=True)
class SnapshotInfo:
    """One scenario's snapshot: where it is saved and what its segments say at the end."""

    scenario: str
    file: str  # pickle in the data dir, loadable by torch.cuda._memory_viz
    entries: int  # trace entries recorded (≤ max_entries: older ones are dropped)
    max_entries: int
    segments: int
    reserved_bytes: int
    allocated_bytes: int
    inactive_bytes: int
    inactive_blocks: int
    largest_inactive_bytes: int
    private_pool_bytes: int  # segments outside the default pool (CUDA graph pools)
    streams: tuple[StreamBytes, ...] = ()
    peak_allocated_bytes: int = 0
    peak_reserved_bytes: int = 0
    # a second pickle taken before the scenario's final empty_cache(), while its segments are
    # still held: the end snapshot's segment view is empty once empty_cache() returned them
    segments_file: str = ""
    # allocations per compiled graph while recording (compile_context=True); () none seen
    compile_contexts: tuple[tuple[str, int], ...] = ()
    compile_context_recorded: bool | None = None  # None: recorded before the lab asked for it


@dataclass(frozen=True)
class CompareResult:
    """Eager vs torch.compile at one shape: peak allocated above the inputs, measured."""

    shape: tuple[int, ...]
    eager_peak_bytes: int | None
    compiled_peak_bytes: int | None
    input_bytes: int
    backend: str = "inductor"


@dataclass(frozen=True)
class WorkloadPeak:
    """One eager and one compiled call of the workload at one shape of the sequence: the most
    allocated during each above the live inputs (None without CUDA), against the ideal."""

    label: str  # the sequence's entry, e.g. "4096x128256" or "512x512:float16"
    shape: tuple[int, ...]
    dtype: str
    input_bytes: int | None = None  # every input tensor (weights and int targets included)
    output_bytes: int | None = None  # the ideal above the inputs: only the output is written
    eager_peak_bytes: int | None = None
    compiled_peak_bytes: int | None = None  # after a warm call: its compile is not counted
    warm_s: float | None = None  # the warm (first) compiled call: any compile it triggered
    compiles: int = 0  # graphs the warm call compiled (0: a graph of an earlier shape served)
    max_abs_diff: float | None = None  # compiled against eager: the same function ran
    error: str | None = None


@dataclass(frozen=True)
class EmptyCacheResult:
    """The same sequence with empty_cache() after every step, and never: time per round."""

    rounds: int
    steps: int
    never_round_ms: tuple[float, ...]
    every_round_ms: tuple[float, ...]
    call_ms: tuple[float, ...]  # the empty_cache() calls alone
    never_reserved_bytes: int | None  # reserved at the end of a round
    every_reserved_bytes: int | None
    # the rounds ran before this job first turned memory history on (False: not stated, as in
    # runs from before the lab said so, when they ran after the recorded scenarios)
    timed_before_history: bool = False


@dataclass(frozen=True)
class SideStreamResult:
    """A tensor used on a side stream and freed on the default one, with and without
    record_stream: whether the next allocation got its block back while the side work ran."""

    nbytes: int
    reused_without_record: bool
    reused_with_record: bool
    free_lag_us: float | None  # free_requested → free_completed with record_stream
    side_reserved_bytes: int  # segments owned by the side stream's pool


@dataclass(frozen=True)
class GraphPoolResult:
    """reduce-overhead (CUDA graphs) keeps its own pool: reserved before, during, after reset."""

    shape: tuple[int, ...]
    reserved_before_bytes: int
    reserved_replaying_bytes: int
    private_pool_bytes: int
    reserved_after_del_bytes: int
    reserved_after_reset_bytes: int


@dataclass(frozen=True)
class ScenarioError:
    scenario: str
    error: str


@dataclass(frozen=True)
class ConfigStep:
    """One step of the dynamic-batch steps under one allocator configuration (its own process)."""

    step: int
    shape: tuple[int, ...]
    dtype: str
    allocated_bytes: int
    reserved_bytes: int
    peak_bytes: int  # max allocated during the step (peaks reset per step)
    segments: int
    largest_free_bytes: int  # the largest inactive block in the cache
    free_in_segments_bytes: int  # all inactive blocks: reserved but not allocated
    expandable_segments: int  # segments the snapshot marks is_expandable
    alloc_retries: int = 0


@dataclass(frozen=True)
class AllocConfigRun:
    config: str  # "default" or the PYTORCH_ALLOC_CONF value
    steps: tuple[ConfigStep, ...] = ()
    end_reserved_bytes: int | None = None  # after the last output is dropped (no empty_cache)
    end_segments: int | None = None
    error: str | None = None


@dataclass(frozen=True)
class OutsideStep:
    """The device after one step of a fresh process: what it uses against what PyTorch holds."""

    step: (
        str  # CUDA context | first cuBLAS call | first compiled Triton kernel | NCCL process group
    )
    device_used_bytes: int  # total − free of cudaMemGetInfo: the whole device
    nvml_used_bytes: int | None  # torch.cuda.device_memory_used (NVML), where it is available
    reserved_bytes: int  # the child's caching allocator
    allocated_bytes: int
    detail: str = ""


@dataclass(frozen=True)
class OutsideRun:
    device_used_before_bytes: int  # the device before the child started (the worker included)
    steps: tuple[OutsideStep, ...] = ()
    nccl: str = ""  # ran / skipped / failed, and why
    error: str | None = None


@dataclass(frozen=True)
class AllocatorResult:
    device: str
    dtype: str
    scenarios: tuple[str, ...]
    sequence: tuple[str, ...]
    compare_side: int
    steps: tuple[StepRecord, ...]
    trace: tuple[TracePoint, ...]  # downsampled; trace_points says how many there were
    trace_points: int
    rss: tuple[RssSample, ...]
    snapshots: tuple[SnapshotInfo, ...] = ()
    compare: CompareResult | None = None
    empty_cache: EmptyCacheResult | None = None
    side_stream: SideStreamResult | None = None
    graphs: GraphPoolResult | None = None
    num_alloc_retries: int | None = None
    num_ooms: int | None = None
    baseline_allocated_bytes: int | None = None  # when the job began
    final_allocated_bytes: int | None = None  # after its cleanup: should equal the baseline
    final_reserved_bytes: int | None = None
    skipped: tuple[str, ...] = ()  # scenarios not run, with why
    errors: tuple[ScenarioError, ...] = ()
    # StepRecord.step_ms was taken while memory history recorded (CUDA): slower than without
    step_ms_under_history: bool = False
    alloc_configs: tuple[AllocConfigRun, ...] = ()  # the configurations A/B; () not asked
    outside: OutsideRun | None = (
        None  # memory outside the allocator, a fresh process; None: not asked
    )
    # the workload every scenario ran; "": recorded before the catalog (the seed's pointwise)
    workload: str = ""
    dims: tuple[str, ...] = ()  # its named dims, as the catalog said when it ran
    params: tuple[tuple[str, int], ...] = ()
    peaks: tuple[WorkloadPeak, ...] = ()  # the compiled scenario, per distinct shape
    # the spec's pass: with a backward (bwd, fwd_bwd) each step of the sequence, empty-cache
    # and compiled scenarios is a training step (forward, then backward), the sequence marked
    # between them ("forward (activations held)"); runs before it: fwd
    training_pass: str = "fwd"


RESULT_TYPE = AllocatorResult  # what the registry rebuilds a stored run into
