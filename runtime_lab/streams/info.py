"""Streams & events' catalog entry: orderings, options, page title, icon and intro."""

from runtime_lab.options import MEASURED_DEFAULTS as BASIS
from runtime_lab.options import ExperimentInfo, OptionSpec
from runtime_lab.workloads.option import workload_options

# The seed's side-stream op, kept as it was before the catalog: its shape is x's (1 to 4 dims)
# and y is x with its last two dims swapped. The catalog's matmul is m × k × n, and a 3-dim
# streams shape has always meant a batch (B × M × K), so the matmul keeps the streams meaning.
SEED_OP = "matmul"
CUDA_STREAMS = "the orderings, their race window and overlap run on CUDA streams"
SEED_SHAPE = (
    "x's shape (1 to 4 dims; y is x with its last two dims swapped): MxK multiplies "
    "(M × K) @ (K × M), the catalog's matmul at m=M, k=K, n=M; 3 or 4 dims are a batch of them"
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

INFO = ExperimentInfo(
    name="streams",
    title="Streams & events",
    summary=(
        "Side-stream op (a matmul, or any workload of the catalog) ordered by CUDA events (record / wait_event), checked against a "
        "default-stream reference; the ordering mistakes run live with slow producers, "
        "per-stream timelines, host vs device time, overlap and event timing."
    ),
    icon=":material/swap_horiz:",
    intro=(
        "A CUDA stream is an ordered queue; an event is a mark on one queue that another "
        "can wait for. The default stream writes **x** and **y** and records "
        "`inputs_ready`; a side stream waits on it, computes **z = x @ y** and records "
        "`work_done`; the default stream waits on that before it consumes **z**. Pick another "
        "**workload** and the side stream runs its function instead (z = rms_norm(x, w), "
        "softmax(x), …; the default stream rewrites its first input each trial). The lab "
        "checks z against the same op on the default stream, then runs each chosen **ordering** "
        "`trials` times with fresh inputs. A spin kernel of `delay_us` queued ahead of "
        "each producer keeps the race window open, so a missing wait shows up as wrong "
        "results out of N. One trial of each ordering is profiled: kernels per stream "
        "lane, event records (▼) and waits (|), and the host's own calls on one time "
        "axis. Two independent matmul chains on two streams vs one show when overlap "
        "pays, and how a default-stream op between their launches serialises them."
    ),
    cpu_note=(
        "Streams and events are CUDA-only. This machine has no GPU: a run checks the side "
        "stream's op (x @ y, or the workload chosen) against the reference and times it with "
        "the host clock; orderings, timelines, overlap and event timing need a GPU and are not "
        "drawn."
    ),
    default_shape="4096x4096",
    cpu_defaults={"shape": "1024x1024"},
    cpu_defaults_why="1024² matmuls (a 4096² one takes about a second on 2 cores, 60 of them a minute).",
    default_run_s={"cpu": 3.3, "cuda": 7.4},
    default_run_basis=BASIS,
    own_shapes={SEED_OP: SEED_SHAPE},
    options={
        **workload_options(
            default=SEED_OP,
            help="the side stream's op (python -m runtime_lab workloads lists them); matmul: "
            "the seed's x @ y",
        ),
        "variant": OptionSpec(
            default=",".join(STREAM_VARIANTS),
            help="orderings run side by side (comma list); the first is the headline",
            choices=tuple(STREAM_VARIANTS),
            kind="multi",
            needs_cuda=CUDA_STREAMS,
        ),
        "trials": OptionSpec(
            default=20,
            help="repeats of each variant with fresh random inputs (mismatches out of N)",
            kind="int",
            needs_cuda=CUDA_STREAMS,
            low=1,
            high=1000,
        ),
        "delay_us": OptionSpec(
            default=1000,
            help="spin kernel queued ahead of each producer, in µs: the window a missing "
            "wait leaves open (0: no window)",
            kind="int",
            needs_cuda=CUDA_STREAMS,
            low=0,
            high=100_000,
        ),
        "sanitizer": OptionSpec(
            default=False,
            help=(
                "also run the orderings in a child process under PyTorch's CUDA sanitizer "
                "(CSAN, TORCH_CUDA_SANITIZER=1): its race / clean verdict and the two "
                "conflicting accesses, next to the wrong results out of N (~15 s more)"
            ),
            kind="bool",
            needs_cuda="the CUDA sanitizer watches CUDA streams",
        ),
        "sanitizer_trials": OptionSpec(
            default=2,
            help="trials of each ordering under the sanitizer (it needs no race window)",
            kind="int",
            needs_cuda="the CUDA sanitizer watches CUDA streams",
            low=1,
            high=20,
        ),
        "overlap": OptionSpec(
            default=True,
            help="two independent matmul chains on two streams vs one stream: small "
            "kernels (also with a default-stream op between launches) and the spec's shape",
            kind="bool",
            needs_cuda=CUDA_STREAMS,
        ),
        "overlap_small": OptionSpec(
            default=512,
            help="square size of the small-kernel overlap case (few thread blocks each)",
            kind="int",
            needs_cuda=CUDA_STREAMS,
            low=16,
            high=4096,
        ),
        "overlap_kernels": OptionSpec(
            default=16,
            help="matmuls per stream in each overlap case",
            kind="int",
            needs_cuda=CUDA_STREAMS,
            low=1,
            high=256,
        ),
    },
)
