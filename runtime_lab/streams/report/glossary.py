"""What each of streams' key figures is: label, unit, which way is better, how taken, when not to trust."""

from __future__ import annotations

from functools import partial

from runtime_lab.glossary.figure import Figure

figure = partial(Figure, "streams")

_WRONG = (
    "Trials (default 20, fresh random inputs each) whose consumed result is not allclose to "
    "the reference computed on the default stream; a spin kernel of delay_us queued ahead of "
    "each producer keeps a missing wait's race window open."
)
_RACE = (
    "Zero wrong results do not prove an ordering safe: with delay_us 0 or few trials a race "
    "can go unseen (the sanitizer's verdict is the stronger evidence)."
)
_OVERLAP = (
    "The profiled trial's kernels per stream lane: time both lanes are busy over time either "
    "lane is busy, in percent."
)

HEADLINE = ("mismatches",)  # what a History label quotes of a run (registry.headline_keys)

FIGURES = (
    figure(
        "variant",
        "first ordering",
        "text",
        "neither",
        "The ordering named first: the top-level figures (wrong results, max |side − reference|) "
        "are its.",
        "Never a number; without a GPU there are no orderings and it is empty.",
    ),
    figure(
        "mismatches",
        "wrong results of the first ordering",
        "count",
        "lower",
        f"{_WRONG} Without a GPU: 1 if the side op's single check failed, else 0.",
        _RACE,
    ),
    figure(
        "max_abs_diff",
        "max |side − reference|",
        "number",
        "lower",
        "The largest elementwise |side-stream result − reference| (the same op computed on the "
        "default stream), in the output's units, over the first ordering's trials; 0: they "
        "matched exactly. Without a GPU there are no streams: the op's result on the host "
        "against a second call of it (the one check).",
        "Read it against the dtype's tolerance; a race shows as wrong results first.",
    ),
    figure(
        "trials",
        "trials of the first ordering",
        "count",
        "neither",
        "How many times the first ordering ran with fresh inputs (the trials option).",
        "An input, not a measurement.",
    ),
    figure(
        "lanes",
        "stream lanes of the first ordering",
        "list",
        "neither",
        "The stream lanes its profiled trial's kernels ran on, in order of first use.",
        "From one profiled trial: a lane the profiler dropped is missing.",
    ),
    figure(
        "variants.*.mismatches",
        "{}: wrong results",
        "count",
        "lower",
        _WRONG,
        _RACE,
    ),
    figure(
        "variants.*.trials",
        "{}: trials",
        "count",
        "neither",
        "How many times this ordering ran with fresh inputs.",
        "An input, not a measurement.",
    ),
    figure(
        "variants.*.max_abs_diff",
        "{}: max |side − reference|",
        "number",
        "lower",
        "The largest elementwise |side-stream result − reference| over this ordering's trials, "
        "as the default stream consumed it (0 without trials).",
        "Read it against the dtype's tolerance; a race shows as wrong results first.",
    ),
    figure(
        "variants.*.reused_block",
        "{}: trials that reused the freed block",
        "count",
        "neither",
        "Early-free orderings: trials where a new tensor got the block freed while the side "
        "stream still used it (data_ptr equal).",
        "Only the early-free orderings can reuse; 0 elsewhere says nothing.",
    ),
    figure(
        "variants.*.lanes",
        "{}: stream lanes",
        "list",
        "neither",
        "The stream lanes this ordering's profiled trial ran kernels on.",
        "From one profiled trial: a lane the profiler dropped is missing.",
    ),
    figure(
        "overlap_pct.*",
        "{} overlap",
        "%",
        "higher",
        f"Two independent chains of the op on two streams, each run queued behind a spin "
        f"kernel: {_OVERLAP}",
        "One profiled run, not a median: kernels that fill the GPU cannot overlap much, and a "
        "profiler's own overhead shifts small kernels.",
    ),
    figure(
        "overlap_hidden_dependency_pct",
        "overlap with a default-stream op between",
        "%",
        "neither",
        f"The same two chains with a small default-stream op after each launch that both "
        f"chains wait on: {_OVERLAP} Low is the point: the hidden dependency serialises them.",
        "One profiled run, not a median.",
    ),
    figure(
        "streams_supported",
        "streams supported",
        "flag",
        "neither",
        "Whether the device has CUDA streams; without them only the correctness check runs.",
        "Never a number.",
    ),
    figure(
        "delay_ms",
        "spin delay ahead of each producer",
        "ms",
        "neither",
        "The spin kernel queued ahead of each producer (the delay_us option), in ms.",
        "An input, not a measurement; the spin's length is set in GPU cycles, so it drifts "
        "with the clock.",
    ),
    figure(
        "event_elapsed_ms_median",
        "Event.elapsed_time of the matmul",
        "ms",
        "lower",
        "Event(enable_timing=True).elapsed_time around each call of the op on the side stream, "
        "as a user would time it by hand (no L2 flush, no warm-up beyond the runs before): the "
        "median per call.",
        "No flush: caches warm from the previous call make it read low against the lab's harness.",
    ),
    figure(
        "host_us_median.*",
        "host time of {}",
        "us",
        "neither",
        "Host wall time (perf_counter) of the call, with delay_ms of spin work queued: "
        "wait_event only enqueues and returns; event.synchronize() and torch.cuda.synchronize() "
        "block until the queued work ends. The median over the trials.",
        "A blocking call's time is the queued delay, by design; a wait that takes as long "
        "means it blocked.",
    ),
    figure(
        "workload",
        "side-stream workload",
        "text",
        "neither",
        "The op the side stream ran (matmul: the seed's x @ y).",
        "Never a number.",
    ),
    figure(
        "op_ms_median",
        "the side-stream op's time per call (lab harness)",
        "ms",
        "lower",
        "The side stream's op under the lab's harness: median of the timed calls, CUDA events "
        "(device time) with the L2 flush on a GPU, host wall time on a CPU.",
        "Noisy (IQR/median > 10 %) or contended runs; a CPU run's host time moves with the core.",
    ),
)
