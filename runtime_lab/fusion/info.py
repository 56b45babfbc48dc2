"""Fusion & compile's catalog entry: modes, options, page title, icon and intro."""

from runtime_lab.options import MEASURED_DEFAULTS as BASIS
from runtime_lab.options import ExperimentInfo, OptionSpec
from runtime_lab.passes import pass_option
from runtime_lab.workloads.option import workload_options

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
        "a workload (softmax, norms, MLP, attention, … or the seed's silu(x + y) * (x - y)), eager "
        "vs torch.compile: kernels from the profiler, tolerance, cold and warm compile latency, "
        "steady-state time, bytes or FLOPs against a measured ceiling."
    ),
    icon=":material/bolt:",
    intro=(
        "Pick a **workload** from the catalog. The default is the seed chapter's "
        "**silu(x + y) * (x − y)**: eager PyTorch runs it as four kernels, each reading its "
        "inputs from memory and writing its result back (11 element transfers per output "
        "element), where Inductor's one fused kernel reads x and y once and writes once (3). "
        "The others are the operators engineers run (softmax, norms, a SwiGLU MLP, a GEMM with "
        "its epilogue, attention, cross-entropy, RoPE, a Transformer block): each says what to "
        "look for. The lab checks every mode against a float64 reference first (a wrong answer "
        "is timed but named as such), "
        "then shows the kernels the profiler saw, what compiling costs (cold, warm cache, warm "
        "process), and where each mode sits on the roofline: GB/s against the measured copy "
        "bandwidth for memory-bound workloads, TFLOP/s against a measured matmul for "
        "compute-bound ones."
    ),
    default_shape="4096x4096",
    cpu_defaults={"shape": "1024x1024", "modes": "eager,inductor,dynamo-eager"},
    cpu_defaults_why=(
        "1024² and three modes (CUDA graphs need a GPU; each compiled mode is a C++ compile of "
        "several seconds on 2 cores)."
    ),
    default_run_s={"cpu": 37.5, "cuda": 16.6},
    default_run_basis=BASIS,
    renamed={"variant": "workload"},  # runs and links from before the catalog
    options={
        "modes": OptionSpec(
            default="eager,inductor,inductor-reduce-overhead,dynamo-eager,cuda-graph",
            help="variants compared side by side",
            choices=FUSION_MODES,
            kind="multi",
            needs_cuda="CUDA graphs need a GPU",
            cuda_choices=("cuda-graph", "cuda-graph-inductor"),
        ),
        **workload_options(
            help="the function every mode runs (python -m runtime_lab workloads lists them)"
        ),
        **pass_option(),
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
            workloads=("pointwise",),
        ),
        "mega_cache": OptionSpec(
            default=False,
            help=(
                "also save torch's portable compile caches (mega-cache) in one fresh process and "
                "load them in another: two fresh processes, ~2× the fresh-process time"
            ),
            kind="bool",
            workloads=("pointwise",),
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
        "reuse_compile": OptionSpec(
            default=True,
            help=(
                "take compile latency and compile evidence from this machine's newest earlier "
                "run whose spec differs only in warm-up, timed calls, L2 flush or seed (the "
                "report names it): no cold compile, the compiled first call uses the persistent "
                "cache. Off: compile cold and trace again, as a first run does"
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
        "sweep_compile": OptionSpec(
            default="fresh",
            help=(
                "how a compiled mode meets the sweep's sizes: fresh (a static kernel compiled "
                "for each size, like the headline's), reuse (one function over every size: "
                "Dynamo's automatic dynamic shapes make the second size compile a dynamic "
                "kernel that then serves every size, the recompile trap), or both (each size "
                "timed both ways: the trap's cost)"
            ),
            choices=("fresh", "reuse", "both"),
        ),
    },
)
