"""Allocator's catalog entry: scenarios, options, page title, icon and intro."""

from runtime_lab.options import MEASURED_DEFAULTS as BASIS
from runtime_lab.options import ExperimentInfo, OptionSpec
from runtime_lab.passes import pass_option
from runtime_lab.workloads.option import workload_options

ALLOCATOR_SCENARIOS = ("sequence", "compiled", "empty-cache", "side-stream", "cudagraphs")
ALLOCATOR_SHAPES = "1024x1024,4096x4096,2048x2048,8192x8192,1024x1024,4096x4096"

INFO = ExperimentInfo(
    name="allocator",
    title="Allocator",
    summary=(
        "The caching allocator live: allocated, reserved and peak memory per step and over "
        "time (from a memory snapshot), empty_cache and its cost, a workload's eager vs "
        "compiled peak per shape, record_stream, CUDA-graph pools, fragmentation and host RSS."
    ),
    icon=":material/memory:",
    intro=(
        "PyTorch's CUDA caching allocator keeps freed blocks for reuse instead of "
        "returning them to the driver. Pick the shapes a dynamic batcher would feed and "
        "the scenarios to run: the lab runs the **workload** (default: the seed's "
        "**silu(x + y) * (x − y)**; any of the catalog) step by step, reads "
        "`torch.cuda.memory_stats` around each step (peaks reset per step), records the "
        "allocator's history (`_record_memory_history`, Python stacks) and draws "
        "allocated, reserved and host RSS for each scenario on its own time axis. "
        "Scenarios: the sequence, eager vs `torch.compile` peak at each shape against the "
        "ideal (inputs + output: the CE fp32 logits copy, the MLP intermediate), "
        "`empty_cache()` after "
        "every step vs never (timed), a side-stream tensor with and without "
        "`record_stream`, and `reduce-overhead` CUDA graphs with their private pool. Each "
        "scenario's snapshot is a download that opens in PyTorch's memory viewer (one "
        "taken before the scenario's final `empty_cache()`, so its segments are still "
        "there). Warm-up, timed calls and L2 flush are not used here: the empty-cache "
        "scenario's `rounds` sets its repeats."
    ),
    default_shape="1024x1024",
    default_run_s={"cpu": 18.2, "cuda": 8.7},
    default_run_basis=BASIS,
    options={
        **workload_options(
            help="the function every scenario runs (python -m runtime_lab workloads lists "
            "them); each shape of the sequence is one number per dim of it"
        ),
        **pass_option(),
        "shapes": OptionSpec(
            default=ALLOCATOR_SHAPES,
            help="steps of the sequence and empty-cache scenarios, in order (what a dynamic "
            "batcher feeds): 1024x1024,4096x4096 or 1024x1024:float16, up to 32, or a preset; "
            "entries without a dtype use the main dtype",
            kind="shapes",
        ),
        "scenarios": OptionSpec(
            default=",".join(ALLOCATOR_SCENARIOS),
            help="sequence: the shapes in order; compiled: eager vs torch.compile peak per shape; "
            "empty-cache: after every step vs never, timed; side-stream: with and without "
            "record_stream; cudagraphs: reduce-overhead's private pool",
            choices=ALLOCATOR_SCENARIOS,
            kind="multi",
            needs_cuda="the CPU allocator keeps no cache, streams or CUDA-graph pools",
            cuda_choices=("empty-cache", "side-stream", "cudagraphs"),
        ),
        "compare_side": OptionSpec(
            default=8192,
            help="square side N (N x N) of the side-stream scenario, and for pointwise of the "
            "compiled (one more shape) and cudagraphs ones (other workloads: the largest shape)",
            kind="int",
            low=1,
            high=32768,
        ),
        "rounds": OptionSpec(
            default=5,
            help="timed passes over the sequence per variant in the empty-cache scenario",
            kind="int",
            needs_cuda="empty_cache returns cached GPU blocks",
            low=1,
            high=50,
        ),
        "alloc_ab": OptionSpec(
            default=False,
            help=(
                "also run the shapes under the default allocator and under "
                "PYTORCH_ALLOC_CONF=expandable_segments:True, each in a fresh process (the "
                "setting is read when CUDA starts): reserved − allocated, segments and the "
                "largest free block per step (CUDA only, ~10 s more)"
            ),
            kind="bool",
            needs_cuda="PYTORCH_ALLOC_CONF configures the CUDA allocator",
        ),
        "outside": OptionSpec(
            default=False,
            help=(
                "GPU memory outside PyTorch's allocator: a fresh process measures the device "
                "after its CUDA context, the first cuBLAS call, the first compiled Triton kernel "
                "and a one-rank NCCL group, against its own reserved bytes (CUDA only, ~15 s)"
            ),
            kind="bool",
            needs_cuda="it measures device memory",
        ),
        "max_entries": OptionSpec(
            default=20000,
            help="memory history kept per scenario (_record_memory_history max_entries); "
            "older entries are dropped",
            kind="int",
            needs_cuda="memory history records the CUDA allocator",
            low=100,
            high=200000,
        ),
    },
)
