"""Shapes & recompiles' catalog entry: dynamic modes, options, page title and intro."""

from runtime_lab.options import MEASURED_DEFAULTS as BASIS
from runtime_lab.options import ExperimentInfo, OptionSpec
from runtime_lab.passes import pass_option
from runtime_lab.workloads.option import workload_options

DEFAULT_MODES = ("dynamic=False", "dynamic=None", "dynamic=True", "mark_dynamic")
# the marks' variants are opt-in: each mode is one more compile of the sequence
RECOMPILE_MODES = (*DEFAULT_MODES, "maybe_mark_dynamic", "mark_unbacked")
STANCES = ("default", "eager_on_recompile", "fail_on_recompile", "force_eager")
SHAPES_HELP = (
    "the calls, in order, each one number per dim of the workload: 512x512,1024x1024 or "
    "512x512:float16 (a dtype change), up to 32, or a preset: along a named dim of the "
    "workload (growing-tokens, varying-seq, …: growing-DIM and varying-DIM for each of its "
    "dims) or, for a 2-dim workload, squares, growing-batch, alternating, odd-sizes, "
    "random:SEED, pow2-buckets, dtype-change. It replaces the main shape, which this "
    "experiment ignores; entries without a dtype use the main dtype"
)
DIMS_HELP = (
    "the workload's dims marked by mark_dynamic, maybe_mark_dynamic and mark_unbacked, and "
    "padded when bucketing: names (tokens, seq) or indices (0), comma-joined; auto: the dims "
    "the sequence varies (else the workload's declared dynamic dims). Each input is marked "
    "on the axes that carry the dim (found by changing the dim on meta tensors)"
)

# name → (what it does, does the ordering guarantee the result?)

INFO = ExperimentInfo(
    name="recompiles",
    title="Shapes & recompiles",
    summary=(
        "A sequence of shapes through torch.compile, call by call: compiles, recompiles and "
        "their guard-failure reasons under each dynamic mode, the recompile limit, bucketing "
        "and graph breaks."
    ),
    icon=":material/sync:",
    intro=(
        "Pick a **workload** and type the shapes it will see, in order (as a dynamic batcher "
        "would feed it), one number per named dim, or pick a preset along a dim (growing "
        "token counts, varying sequence lengths). The default is the seed's **silu(x + y) * "
        "(x − y)**. The lab calls it under `torch.compile` once per shape, for each dynamic "
        "mode from a clean compile "
        "state, and shows call by call whether Dynamo compiled, recompiled or reused a "
        "frame, what the compile cost, which guard failed and why, and how close each "
        "mode came to `recompile_limit`. A bucketing what-if pads the shapes and compares "
        "compiles against the padding's cost; a variant with a graph break shows what "
        "breaks cost and what `fullgraph=True` says about them. Opt in to "
        "`maybe_mark_dynamic` and `mark_unbacked` next to `mark_dynamic`, to a compiler "
        "stance for the calls after the first (what they would do after warm-up), and on a "
        "GPU to the sequence under `mode=reduce-overhead`: which calls record a CUDA graph, "
        "replay one or skip cudagraphs, and the pool they fill."
    ),
    default_shape="512x512",
    cpu_defaults={"shapes": "256x256,512x512,1024x1024,256x256"},
    cpu_defaults_why=(
        "four shapes, not six: each new graph is a C++ compile of several seconds on 2 cores, "
        "and the recompile counts tell the same story."
    ),
    default_run_s={"cpu": 30.3, "cuda": 12.2},
    default_run_basis=BASIS,
    options={
        "shapes": OptionSpec(
            default="512x512,1024x1024,2048x2048,3000x3000,4096x4096,512x512",
            help=SHAPES_HELP,
            kind="shapes",
        ),
        "modes": OptionSpec(
            default=",".join(DEFAULT_MODES),
            help=(
                "dynamic modes compared on the same sequence, each from a clean state; "
                "maybe_mark_dynamic marks the dims as a hint (Dynamo may still specialize them), "
                "mark_unbacked as unbacked sizes (no 0/1 specialization, no guards on them)"
            ),
            choices=RECOMPILE_MODES,
            kind="multi",
        ),
        **workload_options(
            help="the function every call runs (python -m runtime_lab workloads lists them); "
            "each shape of the sequence is one number per dim of it"
        ),
        **pass_option(),
        "dims": OptionSpec(default="auto", help=DIMS_HELP, kind="dims"),
        "mark_dynamic": OptionSpec(
            default="",
            help=(
                "input axes marked with torch._dynamo.mark_dynamic before every call, in every "
                "mode: input:axis pairs (x:0); each marks the workload dim that axis carries, on "
                "every input that carries it (x + y needs both marked). What a recompile's "
                "suggested fix applies (run --apply-suggestion RUN_ID, or the page's button); "
                "empty: none"
            ),
            kind="marks",
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
        "compile_trace": OptionSpec(
            default=True,
            help=(
                "record each mode's structured compile trace (TORCH_TRACE's format) with "
                "Inductor's provenance tracking: compile ids with their guards, graph-break "
                "sites and ids, a tlparse report; the compile seconds then include the trace's "
                "own logging"
            ),
            kind="bool",
        ),
        "stance": OptionSpec(
            default="default",
            help=(
                "torch.compiler.set_stance for every call after the first (which compiles under "
                "the default stance): what the calls after warm-up would do; eager_on_recompile "
                "runs a shape that would recompile eagerly, fail_on_recompile makes it raise, "
                "force_eager ignores torch.compile (torch ≥ 2.6)"
            ),
            choices=STANCES,
        ),
        "cudagraphs": OptionSpec(
            default=False,
            help=(
                "what-if: the same sequence under mode=reduce-overhead (CUDA only): per call "
                "whether Inductor recorded a new CUDA graph, replayed one, or skipped cudagraphs "
                "and why, and the private memory pool's size"
            ),
            kind="bool",
            needs_cuda="mode=reduce-overhead records CUDA graphs",
        ),
        "fresh_caches": OptionSpec(
            default=False,
            help="compile each mode with empty Inductor caches (cold compile seconds)",
            kind="bool",
        ),
    },
)
