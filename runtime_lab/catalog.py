"""The experiments the lab knows, described without importing torch (pages and CLI read this)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class OptionSpec:
    """One experiment-specific field: a choice among strings, a bool, or a bounded int."""

    default: object
    help: str
    choices: tuple[str, ...] = ()
    # "choice" | "multi" (comma list of choices) | "bool" | "int" | "sizes" | "shapes" (sequence)
    kind: str = "choice"
    low: int = 0
    high: int = 0


@dataclass(frozen=True)
class ExperimentInfo:
    name: str
    title: str
    summary: str
    module: str  # imported only inside the worker: it imports torch
    default_shape: str = "4096x4096"
    options: dict[str, OptionSpec] = field(default_factory=dict)
    hidden: bool = False  # diagnostics: in the CLI, not on the pages


FUSION_MODES = (
    "eager",
    "inductor",
    "inductor-reduce-overhead",
    "inductor-max-autotune-no-cudagraphs",
    "dynamo-eager",
    "cuda-graph",
    "cuda-graph-inductor",
)

RECOMPILE_MODES = ("dynamic=False", "dynamic=None", "dynamic=True", "mark_dynamic")
SHAPES_HELP = (
    "the calls, in order: 512x512,1024x1024 or 512x512:float16 (a dtype change), up to 32, or a "
    "preset (squares, growing-batch, alternating, odd-sizes, random:SEED, pow2-buckets, "
    "dtype-change). It replaces the main shape, which this experiment ignores; entries without "
    "a dtype use the main dtype"
)

# name → (what it does, does the ordering guarantee the result?)
STREAM_VARIANTS: dict[str, tuple[str, bool]] = {
    "correct": (
        "record(inputs_ready) → side wait_event → x @ y → record(work_done) → default "
        "wait_event → consume",
        True,
    ),
    "missing-producer-wait": (
        "the side stream multiplies x, y without waiting for the default stream to write them",
        False,
    ),
    "missing-consumer-wait": (
        "the default stream reads z without waiting for the side stream's work_done",
        False,
    ),
    "early-free": (
        "a temporary made on the default stream, used on the side stream and deleted without "
        "record_stream: the allocator hands its block to a new tensor at once",
        False,
    ),
    "early-free-record-stream": (
        "the same temporary with tmp.record_stream(side) before del: reuse waits for the side "
        "stream",
        True,
    ),
    "early-free-event": (
        "the same temporary, deleted after default.wait_event(work_done): the block may be "
        "reused, but only by work ordered after the side stream's",
        True,
    ),
    "wait-stream": (
        "side.wait_stream(default) and default.wait_stream(side) instead of events",
        True,
    ),
    "synchronize": ("torch.cuda.synchronize() between the steps: correct, the host blocks", True),
    "serial": ("everything on the default stream: the serial reference", True),
}

ALLOCATOR_SCENARIOS = ("sequence", "compiled", "empty-cache", "side-stream", "cudagraphs")
ALLOCATOR_SHAPES = "1024x1024,4096x4096,2048x2048,8192x8192,1024x1024,4096x4096"

EXPERIMENTS: dict[str, ExperimentInfo] = {
    "fusion": ExperimentInfo(
        name="fusion",
        title="Fusion & compile",
        summary=(
            "silu(x + y) * (x - y), eager vs torch.compile: kernels from the profiler, tolerance, "
            "cold and warm compile latency, steady-state time, bytes moved against the copy ceiling."
        ),
        module="runtime_lab.experiments.fusion",
        default_shape="4096x4096",
        options={
            "modes": OptionSpec(
                default="eager,inductor,inductor-reduce-overhead,dynamo-eager,cuda-graph",
                help="variants compared side by side",
                choices=FUSION_MODES,
                kind="multi",
            ),
            "fullgraph": OptionSpec(default=True, help="torch.compile(fullgraph=...)", kind="bool"),
            "dynamic": OptionSpec(
                default="auto",
                help="torch.compile(dynamic=...): auto is None (automatic dynamic)",
                choices=("auto", "false", "true"),
            ),
            "compile_latency": OptionSpec(
                default=True,
                help="measure cold / warm-cache / warm-process compile of the inductor mode",
                kind="bool",
            ),
            "fresh_process": OptionSpec(
                default=False,
                help="also compile cold in a fresh process (import + init + compile, ~20 s)",
                kind="bool",
            ),
            "sweep": OptionSpec(
                default="",
                help="square sizes to sweep, e.g. 256,1024,4096,16384 (empty: no sweep)",
                kind="sizes",
                low=1,
                high=32768,
            ),
        },
    ),
    "streams": ExperimentInfo(
        name="streams",
        title="Streams & events",
        summary=(
            "Side-stream matmul ordered by CUDA events (record / wait_event), checked against a "
            "default-stream reference; the ordering mistakes run live with slow producers, "
            "per-stream timelines, host vs device time, overlap and event timing."
        ),
        module="runtime_lab.experiments.streams",
        default_shape="4096x4096",
        options={
            "variant": OptionSpec(
                default=",".join(STREAM_VARIANTS),
                help="orderings run side by side (comma list); the first is the headline",
                choices=tuple(STREAM_VARIANTS),
                kind="multi",
            ),
            "trials": OptionSpec(
                default=20,
                help="repeats of each variant with fresh random inputs (mismatches out of N)",
                kind="int",
                low=1,
                high=1000,
            ),
            "delay_us": OptionSpec(
                default=1000,
                help="spin kernel queued ahead of each producer, in µs: the window a missing "
                "wait leaves open (0: no window)",
                kind="int",
                low=0,
                high=100_000,
            ),
            "overlap": OptionSpec(
                default=True,
                help="two independent matmul chains on two streams vs one stream: small "
                "kernels and the spec's shape",
                kind="bool",
            ),
            "overlap_small": OptionSpec(
                default=512,
                help="square size of the small-kernel overlap case (few thread blocks each)",
                kind="int",
                low=16,
                high=4096,
            ),
            "overlap_kernels": OptionSpec(
                default=16,
                help="matmuls per stream in each overlap case",
                kind="int",
                low=1,
                high=256,
            ),
        },
    ),
    "recompiles": ExperimentInfo(
        name="recompiles",
        title="Shapes & recompiles",
        summary=(
            "A sequence of shapes through torch.compile, call by call: compiles, recompiles and "
            "their guard-failure reasons under each dynamic mode, the recompile limit, bucketing "
            "and graph breaks."
        ),
        module="runtime_lab.experiments.recompiles",
        default_shape="512x512",
        options={
            "shapes": OptionSpec(
                default="512x512,1024x1024,2048x2048,3000x3000,4096x4096,512x512",
                help=SHAPES_HELP,
                kind="shapes",
            ),
            "modes": OptionSpec(
                default=",".join(RECOMPILE_MODES),
                help="dynamic modes compared on the same sequence, each from a clean state",
                choices=RECOMPILE_MODES,
                kind="multi",
            ),
            "dims": OptionSpec(
                default="0,1",
                help="dimensions marked dynamic in mark_dynamic and padded when bucketing",
                choices=("0", "1", "2", "3"),
                kind="multi",
            ),
            "backend": OptionSpec(
                default="inductor",
                help="torch.compile backend: eager is Dynamo only (same recompiles, fast compiles)",
                choices=("inductor", "eager"),
            ),
            "bucket": OptionSpec(
                default="pow2",
                help="what-if: pad shapes up to buckets and rerun with dynamic=False (off: skip)",
                choices=("pow2", "multiple", "off"),
            ),
            "bucket_multiple": OptionSpec(
                default=256, help="bucket size N for bucket=multiple", kind="int", low=1, high=65536
            ),
            "graph_break": OptionSpec(
                default="item-branch",
                help="variant with a graph break: a data-dependent .item() branch or a print()",
                choices=("item-branch", "print", "off"),
            ),
            "recompile_limit": OptionSpec(
                default=8,
                help="torch._dynamo.config.recompile_limit for this run (torch's default 8)",
                kind="int",
                low=1,
                high=64,
            ),
            "fullgraph": OptionSpec(
                default=False,
                help="torch.compile(fullgraph=...): True makes hitting the limit an error",
                kind="bool",
            ),
            "fresh_caches": OptionSpec(
                default=False,
                help="compile each mode with empty Inductor caches (cold compile seconds)",
                kind="bool",
            ),
        },
    ),
    "allocator": ExperimentInfo(
        name="allocator",
        title="Allocator",
        summary=(
            "The caching allocator live: allocated, reserved and peak memory per step and over "
            "time (from a memory snapshot), empty_cache and its cost, eager vs compiled peak, "
            "record_stream, CUDA-graph pools, fragmentation and host RSS."
        ),
        module="runtime_lab.experiments.allocator",
        default_shape="1024x1024",
        options={
            "shapes": OptionSpec(
                default=ALLOCATOR_SHAPES,
                help="steps of the sequence and empty-cache scenarios, in order (what a dynamic "
                "batcher feeds): 1024x1024,4096x4096 or 1024x1024:float16, up to 32, or a preset; "
                "entries without a dtype use the main dtype",
                kind="shapes",
            ),
            "scenarios": OptionSpec(
                default=",".join(ALLOCATOR_SCENARIOS),
                help="sequence: the shapes in order; compiled: eager vs torch.compile peak; "
                "empty-cache: after every step vs never, timed; side-stream: with and without "
                "record_stream; cudagraphs: reduce-overhead's private pool",
                choices=ALLOCATOR_SCENARIOS,
                kind="multi",
            ),
            "compare_side": OptionSpec(
                default=8192,
                help="square side N (N x N) of the compiled, side-stream and cudagraphs scenarios",
                kind="int",
                low=1,
                high=32768,
            ),
            "rounds": OptionSpec(
                default=5,
                help="timed passes over the sequence per variant in the empty-cache scenario",
                kind="int",
                low=1,
                high=50,
            ),
            "max_entries": OptionSpec(
                default=20000,
                help="memory history kept per scenario (_record_memory_history max_entries); "
                "older entries are dropped",
                kind="int",
                low=100,
                high=200000,
            ),
        },
    ),
    "selftest": ExperimentInfo(
        name="selftest",
        title="Worker self-test",
        summary="Diagnostics of the worker: a job that succeeds, sleeps, raises, crashes or hangs.",
        module="runtime_lab.experiments.selftest",
        default_shape="8",
        options={
            "behaviour": OptionSpec(
                default="ok",
                help="what the job does",
                choices=("ok", "sleep", "raise", "crash", "hang", "oom"),
            ),
            "seconds": OptionSpec(
                default=1, help="how long 'sleep' runs", kind="int", low=0, high=3600
            ),
        },
        hidden=True,
    ),
}


def visible() -> list[ExperimentInfo]:
    """Experiments shown on pages (diagnostics stay CLI-only)."""
    return [info for info in EXPERIMENTS.values() if not info.hidden]
