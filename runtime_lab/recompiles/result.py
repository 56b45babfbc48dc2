"""Typed results of the recompiles experiment: per call, per dynamic mode, the graph-break variant."""

from __future__ import annotations

from dataclasses import dataclass

from runtime_lab.compiler.log import CompileEvidence

# What happened on one call of a compiled function.
EVENTS = ("compile", "recompile", "cache hit", "eager fallback", "failed")
# What cudagraph trees did on a call under mode=reduce-overhead: a new graph's first run is a
# warm-up in the pool, its next run records it, later ones replay it
CUDAGRAPH_STATES = ("warmup", "recorded", "replayed", "skipped")


@dataclass(frozen=True)
class CallRecord:
    index: int  # 1-based position in the sequence
    shape: tuple[int, ...]  # what the compiled function saw (padded when bucketing)
    requested_shape: tuple[int, ...]  # what the sequence asked for
    dtype: str
    event: str  # one of EVENTS
    call_s: float  # wall seconds of the call, compile included
    compile_s: float | None = None  # Dynamo's cumulative compile time of compiles in this call
    compile_id: str | None = None  # the compiled frame that ran the call (None: ran eager)
    reason: str | None = None  # the guard failure that caused the recompile (first listed)
    guard_failures: tuple[str, ...] = ()  # every cached frame's failing guard, from the log
    guard_count: int | None = None  # guards of the frame compiled by this call
    fx_cache: str | None = None  # Inductor FX graph cache: hit | miss | None (no Inductor)
    steady_ms: float | None = None  # median per call once compiled, same input
    steady_iqr_ms: float | None = None
    eager_ms: float | None = None  # median per call of plain eager, same (unpadded) input
    padding_bytes: int = 0  # extra bytes moved per call by padding (x, y read; out written)
    error: str | None = None
    stance: str | None = None  # the torch.compiler stance the call ran under (None: default)
    cudagraph: str | None = None  # one of CUDAGRAPH_STATES (reduce-overhead what-if only)
    cudagraph_id: int | None = None  # the CUDA graph recorded or replayed
    cudagraph_reason: str | None = None  # why it warmed up or skipped cudagraphs


@dataclass(frozen=True)
class ModeRun:
    # dynamic=False | dynamic=None | dynamic=True | mark_dynamic | maybe_mark_dynamic |
    # mark_unbacked | bucketed | reduce-overhead
    mode: str
    dynamic: str  # the torch.compile(dynamic=...) argument, as text
    detail: str  # what the mode does, in words
    calls: tuple[CallRecord, ...] = ()
    unique_graphs: int = 0  # counters["stats"]["unique_graphs"]
    compiles: int = 0  # successful compiles (frames in the cache)
    recompiles: int = 0
    cache_hits: int = 0
    eager_fallbacks: int = 0
    failed_calls: int = 0
    compile_s: float = 0.0  # sum of Dynamo's cumulative compile time over the compiles
    graph_breaks: int = 0
    recompile_limit: int = 8
    limit_hit: bool = False
    limit_state: str | None = None  # what hitting the limit did, in words
    limit_error: str | None = None  # the exception or Dynamo's failure text, verbatim
    final_compile_id: str | None = None
    final_guards: str | None = None  # the newest cached frame's guard tree
    timing_compiles: int = 0  # compiles that steady-state timing caused (should be 0)
    error: str | None = None  # the mode as a whole failed
    # the sequence's structured compile trace: compile ids with guards, kernels, tlparse report
    compile_evidence: CompileEvidence | None = None
    stance: str | None = None  # set for the calls after the first (None: the default stance)
    stance_eager: int = 0  # later calls the stance ran eager (they would have compiled)
    stance_failed: int = 0  # later calls the stance made raise
    pool_bytes: int | None = None  # reduce-overhead: the CUDA-graph pool's segments after it
    cudagraph_note: str | None = None  # what the CUDA-graph watch could not see, and why


@dataclass(frozen=True)
class GraphBreakResult:
    variant: str  # item-branch | print
    source: str
    shape: tuple[int, ...]
    dtype: str
    unique_graphs: int = 0
    graph_breaks: int = 0
    reasons: tuple[str, ...] = ()  # first line of each break reason, with its count
    reason_details: tuple[str, ...] = ()  # each reason in full
    fullgraph_error_type: str | None = None
    fullgraph_error: str | None = None
    matches_eager: bool | None = None
    error: str | None = None
    # the first compile's structured trace: each break's user line, explanation and gb id
    compile_evidence: CompileEvidence | None = None


@dataclass(frozen=True)
class RecompilesResult:
    device: str
    backend: str
    fullgraph: bool
    dtype: str  # for entries without their own
    sequence: tuple[str, ...]  # entry texts, as run
    dims: tuple[int, ...]  # the dims marked and padded (indices into each shape)
    recompile_limit: int
    bucket: str  # pow2 | multiple | off
    bucket_multiple: int
    fresh_caches: bool
    modes: tuple[ModeRun, ...]
    graph_break: GraphBreakResult | None = None
    notes: tuple[str, ...] = ()
    stance: str = "default"  # what ran: "default" when asked for one this torch lacks
    cudagraphs: bool = False  # the reduce-overhead what-if was asked for
    # the workload (None: a run from before the catalog, of the seed's pointwise function)
    workload: str | None = None
    dim_names: tuple[str, ...] = ()  # its named dims, in shape order (dims indexes them)
    params: str = ""  # its parameters as typed (canonical; empty: its defaults)
    marked: str = ""  # the input axes the marks went on, in words: "x dim 0"
    # the mark_dynamic option as applied in every mode: every input axis carrying the dims its
    # pairs name ("x:0,y:0"), and those dims (indices into each shape); "" and (): none
    mark_dynamic: str = ""
    mark_dynamic_dims: tuple[int, ...] = ()
    # per named dim (shape order), the input axes that carry it, as marks: ("x:0,y:0", "x:1,y:1");
    # what names an input axis by its dim and marks a dim the sequence varies; (): a run before
    dim_axes: tuple[str, ...] = ()
    # the spec's pass: with a backward each call was a training step (forward and backward
    # graphs compiled per guard failure; the steady state times the pass); runs before it: fwd
    training_pass: str = "fwd"


RESULT_TYPE = RecompilesResult  # what the registry rebuilds a stored run into
