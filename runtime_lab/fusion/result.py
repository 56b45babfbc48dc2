"""Typed results of the fusion experiment: per-mode correctness, kernels, compile latency, time."""

from __future__ import annotations

from dataclasses import dataclass

from runtime_lab.compiler.log import CompileEvidence
from runtime_lab.compiler.occupancy import DeviceLimits
from runtime_lab.results import CompileLatency, GpuState, KernelRow, Timing, TritonKernel

# Element transfers per output element (reads + writes of one dtype-sized element).
# Eager: add 2+1, silu 1+1, sub 2+1, mul 2+1 = 11. Fused: read x, read y, write out = 3.
# (Runs record their own: the long-chain variant's eager count comes from its op list.)
EAGER_TRANSFERS = 11
FUSED_TRANSFERS = 3
# the naive A/B's compiled first call where the run took its cold one from an earlier run
# (FusionResult.compile_from_run): this run's own, with the persistent cache, kept beside it
OWN_FIRST_CALL = "this run's first call"


@dataclass(frozen=True)
class ClockReading:
    """One mode timed by one clock: the lab's harness, torch.utils.benchmark or triton.do_bench."""

    clock: str  # "lab" | "torch.utils.benchmark" | "triton.do_bench"
    # as the clock reports them: do_bench's quantile fallback gives these without samples
    median_ms: float
    iqr_ms: float | None
    samples_ms: tuple[float, ...]  # per call (torch.utils.benchmark: per block, ÷ calls in it)
    detail: str = ""  # what the clock times and how it treats the L2 cache
    gpu: GpuState | None = None  # CUDA with NVML: the clock and power while this clock timed


@dataclass(frozen=True)
class AutotuneChoice:
    """One candidate Inductor benchmarked for a GEMM or template while max-autotune compiled."""

    choice: str  # as Inductor names it: "mm" (extern cuBLAS), "triton_mm_58", "decompose_k_…"
    kind: str  # "triton" (a Triton template), "extern" (an ATen kernel: cuBLAS), "other"
    config: str = ""  # Inductor's description, e.g. "BLOCK_K=64, …, num_stages=5, num_warps=8"
    time_ms: float | None = None  # its benchmark time; None: the choice failed (inf)
    winner: bool = False  # the fastest: the one Inductor's benchmark picked


@dataclass(frozen=True)
class AutotuneOp:
    """One GEMM or template Inductor autotuned: its candidates, fastest first."""

    op: str  # "mm(4096x14336, 14336x4096)": the op and its input sizes
    choices: tuple[AutotuneChoice, ...] = ()
    autotune_s: float | None = None  # Inductor's benchmarking seconds; None: not given
    precompile_s: float | None = None  # compiling the Triton choices before benchmarking
    # False: the times came from Inductor's autotune cache (an op of the same shapes was
    # benchmarked before: by an earlier job, or earlier in this compile)
    benchmarked: bool = True


@dataclass(frozen=True)
class Autotune:
    """What a max-autotune mode's first call autotuned; `note` says why `ops` is empty."""

    ops: tuple[AutotuneOp, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class GradCheck:
    """One gradient of a training step against float64 (issue 39), judged as the output is:
    the float64 bound over its own reductions, else no worse than eager's gradient."""

    name: str  # the input it is the gradient of, as the workload's fn names it ("w")
    max_abs_diff_fp64: float | None = None
    rel_err_fp64: float | None = None  # over the largest |float64 gradient|
    allowed_err_fp64: float | None = None  # what the deciding rule allowed (correctness.check)
    tolerance_rule: str | None = None  # as ModeResult's; "gradient missing": autograd gave None
    tolerance_passed: bool | None = None
    # the reductions on this gradient's path: the bound's K is their sum (ops.grad_reduction_lengths)
    reduction_lengths: tuple[int, ...] = ()
    problem: str | None = None  # why it could not be judged by a bound (NaN, shape, missing)


@dataclass(frozen=True)
class SavedForBackward:
    """What one forward of a training step saved for its backward (autograd's pack hook saw
    each tensor): eager's autograd nodes, or AOTAutograd's partitioner for a compiled mode."""

    tensors: int  # tensors packed (one tensor saved by two nodes counts twice)
    bytes: int  # the storages they keep alive, each once
    activation_bytes: int  # of those, the storages that are not the step's inputs


@dataclass(frozen=True)
class ModeResult:
    mode: str
    ran: bool  # False: not applicable here (e.g. CUDA graphs on CPU) or failed before timing
    error: str | None = None
    max_abs_diff: float | None = None  # against eager
    max_abs_diff_fp64: float | None = None  # against a float64 reference
    rel_err_fp64: float | None = None
    tolerance_passed: bool | None = None  # False: timed all the same when its output is finite
    # issue 41: what max_abs_diff_fp64 was allowed by the rule that decided (the one it passed,
    # or the more lenient one it failed): "float64 bound", "no worse than eager", "finite
    # output", "output shape"; None in older runs (judged against eager elementwise)
    allowed_err_fp64: float | None = None
    tolerance_rule: str | None = None
    # why a mode that could run was not timed (an exception, NaN or infinite output), one
    # line; None: timed, not applicable here (error says why), or an older run
    not_timed: str | None = None
    kernels: tuple[KernelRow, ...] = ()
    kernel_count: float | None = None  # launches per call
    timing: Timing | None = None
    loop_calls: int = 0  # calls issued back to back, no flush: throughput, launch overhead included
    loop_us_per_call: float | None = None  # median over loops: device (CUDA events) or wall (CPU)
    loop_us_samples: tuple[float, ...] = ()  # each loop's per-call figure; () in old runs
    loop_host_us_per_call: float | None = None  # host time to issue each call in the loop
    transfers_per_element: int = EAGER_TRANSFERS
    bytes_moved: int = 0  # per call, from the bytes model
    unique_graphs: int | None = None
    graph_breaks: int | None = None
    break_reasons: tuple[str, ...] = ()
    cuda_graph_compatible: bool | None = None
    cudagraph_skip: str | None = None
    compile: tuple[CompileLatency, ...] = ()
    generated_code: str | None = None
    trace_file: str | None = None  # Chrome trace of the profiled calls, under the data dir
    clocks: tuple[ClockReading, ...] = ()  # the same callable under three clocks; () in old runs
    # a cold compile traced after timing: compile ids, kernels joined to source, tlparse report
    compile_evidence: CompileEvidence | None = None
    # CUDA: Inductor's compiled Triton kernels (registers, spills, config); () elsewhere and in
    # older runs, with the reason in triton_note when it was asked for and not found
    triton_kernels: tuple[TritonKernel, ...] = ()
    triton_note: str | None = None
    # the profiled kernels by pass, as launches per call: fwd runs count every kernel as the
    # forward's (their rows are `kernels`); a training step (bwd, fwd_bwd) splits its rows by
    # pass (bwd times no forward: None). Older runs: None and no rows
    forward_kernels: float | None = None
    backward_kernels: float | None = None
    forward_kernel_rows: tuple[KernelRow, ...] = ()
    backward_kernel_rows: tuple[KernelRow, ...] = ()
    # the gradients against those of fn over float64 inputs (same grad_output); None in fwd
    grad_max_abs_diff_fp64: float | None = None
    grad_rel_err_fp64: float | None = None
    grad_tolerance_passed: bool | None = None
    # the deciding gradient's allowance and rule (its worst against its allowance), and each
    # gradient's judgement; None and () in fwd runs and runs before gradients had the bound
    grad_allowed_err_fp64: float | None = None
    grad_tolerance_rule: str | None = None
    grad_checks: tuple[GradCheck, ...] = ()
    # a pass with a backward: what the forward saved for it; None in fwd and older runs
    saved: SavedForBackward | None = None
    # max-autotune on CUDA: the choices Inductor benchmarked in the first call; None elsewhere
    # and in older runs
    autotune: Autotune | None = None


@dataclass(frozen=True)
class SweepPoint:
    mode: str
    side: int  # square side length: shape side x side
    median_ms: float
    iqr_ms: float
    bytes_moved: int
    loop_us_per_call: float | None = None  # back-to-back calls: where launch overhead shows
    # a compiled mode's point: how its function met the sizes ("fresh": compiled static for this
    # size; "reuse": one function over every size), and the graph that served it ("static" or
    # "dynamic", from the compile records; None: eager, or not recorded by this torch)
    compiled: str | None = None
    kernel: str | None = None


@dataclass(frozen=True)
class EagerOp:
    """One aten op eager ran (recorded at the dispatcher), with the bytes it read and wrote."""

    op: str
    read_bytes: int
    write_bytes: int


@dataclass(frozen=True)
class FusionResult:
    device: str
    dtype: str
    shape: tuple[int, ...]
    numel: int
    element_bytes: int
    rtol: float
    atol: float
    modes: tuple[ModeResult, ...]
    copy_ceiling_gbps: float | None
    sweep: tuple[SweepPoint, ...] = ()
    notes: tuple[str, ...] = ()
    # the workload's own byte pattern (2 reads + 1 write, torch.add into a third buffer)
    add_gbps: float | None = None
    ceiling_gbps: float | None = None  # the best measured of copy and add: what % of ceiling uses
    ceiling_source: str | None = None  # "copy" | "add (2 reads + 1 write)"
    theoretical_gbps: float | None = None  # bus width × memory clock × 2; None: not available
    theoretical_detail: str = ""  # where the theoretical figure came from, or why there is none
    # False in runs recorded before every timed phase ran ahead of the job's profiler sessions;
    # their report and CLI summary stay as they were recorded
    timed_before_profiling: bool = False
    variant: str = "pointwise"  # the workload's name (runtime_lab/workloads), as recorded
    params: tuple[tuple[str, int], ...] = ()  # the workload's parameters as run
    bound: str = "memory"  # the workload's declared bound: which ceiling its roofline reads
    # the bytes model, per call: each input read once and each output written once (ideal),
    # and what eager's op list reads and writes; 0 in runs from before the catalog
    ideal_bytes: int = 0
    eager_bytes: int = 0
    eager_ops: tuple[EagerOp, ...] = ()
    flops_per_call: int = 0  # the workload's FLOP count (multiply-add = 2); 0: not declared
    # the reductions on an output element's path (a GEMM's K, a norm's row): the float64
    # bound's K is their sum; () for elementwise workloads and in runs before issue 41
    reduction_lengths: tuple[int, ...] = ()
    matmul_tflops: float | None = None  # measured n³ matmul in the job's dtype: compute ceiling
    matmul_detail: str = ""
    peak_tflops: float | None = None  # the datasheet's dense peak, where the lab knows the GPU
    peak_detail: str = ""
    # the GPU's occupancy limits; None on CPU and in older runs (limits_note says why, if asked)
    device_limits: DeviceLimits | None = None
    limits_note: str = ""
    training_pass: str = "fwd"  # the spec's pass (fwd, bwd, fwd_bwd); runs before it: fwd
    # a training step's bytes besides what the forward saved: the grad_output the backward
    # reads and the gradients it writes (step.ideal_step_bytes); None for fwd and older runs
    grad_output_bytes: int | None = None
    grad_bytes: int | None = None
    # issue 49: this job's name in the lab's record of who wrote each compile-cache entry
    # (CompileLatency.cache_writers of a later run); "" in older runs
    cache_token: str = ""
    # issue 49: the stored run whose compile latency and compile evidence this run holds (same
    # compile inputs, only timing fields changed): its compiled first call used the persistent
    # cache, and the server copied those records in (fusion/report/reuse.py); None: measured
    # here, and in older runs
    compile_from_run: int | None = None


RESULT_TYPE = FusionResult  # what the registry rebuilds a stored run into
