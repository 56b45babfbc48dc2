"""Fusion & compile's catalog entry: modes, options, page title, icon and intro."""

from runtime_lab.options import MEASURED_DEFAULTS as BASIS
from runtime_lab.options import ExperimentInfo, OptionSpec

WORKLOADS = ("pointwise", "long-chain")  # runtime_lab/lab/workload.py builds each one

FUSION_MODES = (
    "eager",
    "inductor",
    "inductor-reduce-overhead",
    "inductor-max-autotune-no-cudagraphs",
    "dynamo-eager",
    "cuda-graph",
    "cuda-graph-inductor",
)

INFO = ExperimentInfo(
    name="fusion",
    title="Fusion & compile",
    summary=(
        "silu(x + y) * (x - y), eager vs torch.compile: kernels from the profiler, tolerance, "
        "cold and warm compile latency, steady-state time, bytes moved against the copy ceiling."
    ),
    icon=":material/bolt:",
    intro=(
        "The workload is **silu(x + y) * (x − y)**. Eager PyTorch runs it as four kernels "
        "(add, sub, silu, mul), each reading its inputs from memory and writing its "
        "result back: 11 element transfers per output element. Inductor fuses it into one "
        "kernel that reads x and y once and writes the output once: 3 transfers, so a "
        "memory-bound call should be up to 11/3 ≈ 3.7× faster. The lab checks every mode "
        "against eager first, then shows the kernels the profiler saw, what compiling "
        "costs (cold, warm cache, warm process), and how close each mode gets to the "
        "measured copy bandwidth. The **long-chain** variant is the what-if: 16 dependent "
        "steps h = y + c·h whose results all stay live until their sum is known (62 eager "
        "kernels, one fused kernel holding 16 values per element in registers), to show what "
        "register pressure does to the fused kernel's occupancy."
    ),
    default_shape="4096x4096",
    cpu_defaults={"shape": "1024x1024", "modes": "eager,inductor,dynamo-eager"},
    cpu_defaults_why=(
        "1024² and three modes (CUDA graphs need a GPU; each compiled mode is a C++ compile of "
        "several seconds on 2 cores)."
    ),
    default_run_s={"cpu": 37.5, "cuda": 16.6},
    default_run_basis=BASIS,
    options={
        "modes": OptionSpec(
            default="eager,inductor,inductor-reduce-overhead,dynamo-eager,cuda-graph",
            help="variants compared side by side",
            choices=FUSION_MODES,
            kind="multi",
        ),
        "variant": OptionSpec(
            default="pointwise",
            help=(
                "the workload: silu(x + y) * (x - y), or long-chain (16 live intermediates per "
                "element: a fused kernel with heavy register use)"
            ),
            choices=WORKLOADS,
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
        "mega_cache": OptionSpec(
            default=False,
            help=(
                "also save torch's portable compile caches (mega-cache) in one fresh process and "
                "load them in another: two fresh processes, ~2× the fresh-process time"
            ),
            kind="bool",
        ),
        "compile_trace": OptionSpec(
            default=True,
            help=(
                "after timing, compile each compiled mode once more (cold) with the structured "
                "trace and provenance on: kernels joined to their source, compile ids with their "
                "guards, a tlparse report"
            ),
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
)
