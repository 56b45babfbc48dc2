"""What each of allocator's key figures is: label, unit, which way is better, how taken, when not to trust."""

from __future__ import annotations

from functools import partial

from runtime_lab.glossary.figure import Figure, workload_params

figure = partial(Figure, "allocator")

_STATS = "torch.cuda.memory_stats() of the caching allocator"
_CUDA = (
    "None on a CPU run (no caching allocator to ask); memory history records during the "
    "scenarios, which adds nothing to these byte counts but slows each allocation."
)
_ONE = "One reading at one moment, not a sample: exact for this sequence and torch version."
_TEXT = "Never a number."

# what a History label quotes of a run (registry.headline_keys): a GPU run's, else a CPU run's
HEADLINE = ("peak_bytes.sequence", "host_rss_peak_bytes")

FIGURES = (
    figure(
        "allocated_bytes.*",
        "{} allocated after del",
        "bytes",
        "lower",
        f"allocated_bytes.all.current of {_STATS} at the scenario's last 'after del' mark: "
        f"what its tensors still hold once dropped.",
        f"{_ONE} {_CUDA}",
    ),
    figure(
        "reserved_bytes.*",
        "{} reserved after del",
        "bytes",
        "lower",
        f"reserved_bytes.all.current of {_STATS} at the scenario's last 'after del' mark: "
        f"segments the cache keeps for reuse.",
        f"{_ONE} {_CUDA}",
    ),
    figure(
        "peak_bytes.*",
        "{} peak allocated",
        "bytes",
        "lower",
        f"The most allocated during any step of the scenario (peaks reset at each step, {_STATS}).",
        f"{_ONE} {_CUDA}",
    ),
    figure(
        "reserved_after_empty_cache_bytes.*",
        "{} reserved after empty_cache",
        "bytes",
        "lower",
        "reserved_bytes.all.current at the scenario's last 'after empty_cache' mark: what "
        "empty_cache() could not return (live tensors, a graph's private pool).",
        f"{_ONE} {_CUDA}",
    ),
    figure(
        "steps",
        "memory at each step",
        "list",
        "neither",
        "Every mark of every scenario: allocated, reserved and peak bytes (CUDA) and the "
        "worker's RSS with its children, in run order.",
        "The raw curve: read the per-scenario figures for comparisons.",
    ),
    figure(
        "empty_cache_cost_ms",
        "empty_cache() after every step, cost per step",
        "ms",
        "lower",
        "The sequence run in rounds (default 5) alternating never / every step empty_cache(), "
        "before the scenarios record allocation history: (median 'every' round − median "
        "'never' round) / steps, each round synchronised wall time.",
        "Few rounds: a difference of medians has no spread of its own; a busy device moves "
        "both arms.",
    ),
    figure(
        "empty_cache_call_ms",
        "one empty_cache() call",
        "ms",
        "lower",
        "Wall time of each torch.cuda.empty_cache() call in the 'every' rounds (it synchronises "
        "and cudaFree()s every cached block): the median.",
        "The cost depends on how many segments the cache held at that moment.",
    ),
    figure(
        "compiled.shape",
        "eager vs compiled: shape",
        "list",
        "neither",
        "The shape of the eager vs compiled peak comparison (the compare_side option).",
        "An input, not a measurement.",
    ),
    figure(
        "compiled.eager_peak_bytes",
        "eager vs compiled: eager peak",
        "bytes",
        "lower",
        f"The most allocated during one eager call above its live inputs ({_STATS}, peak "
        f"reset before the call).",
        f"{_ONE} {_CUDA}",
    ),
    figure(
        "compiled.compiled_peak_bytes",
        "eager vs compiled: compiled peak",
        "bytes",
        "lower",
        f"The most allocated during one compiled call above its live inputs, after a warm call "
        f"(its compile is not counted; {_STATS}).",
        f"{_ONE} {_CUDA}",
    ),
    figure(
        "compiled.delta_bytes",
        "eager vs compiled: memory the compiled call saves",
        "bytes",
        "higher",
        "Eager's peak minus the compiled call's: positive when compiling saved memory.",
        f"{_ONE} {_CUDA}",
    ),
    figure(
        "side_stream.reused_without_record_stream",
        "side stream: block reused without record_stream",
        "flag",
        "neither",
        "A tensor used on a side stream and freed on the default one while the side work still "
        "ran: whether the next allocation got its block back (data_ptr equal). Yes is the hazard.",
        "One trial: a side op that finishes early leaves nothing to reuse early.",
    ),
    figure(
        "side_stream.reused_with_record_stream",
        "side stream: block reused with record_stream",
        "flag",
        "neither",
        "The same with tensor.record_stream(side): the allocator should hold the block until "
        "the side work ends, so no is expected.",
        "One trial: a side op that finishes early leaves nothing to reuse early.",
    ),
    figure(
        "side_stream.free_lag_us",
        "side stream: free lag with record_stream",
        "us",
        "neither",
        "The longest free_requested → free_completed wait in the memory history under "
        "record_stream: how long the allocator held a freed block for the side stream.",
        "Event times from the memory history, one block: a rough figure of the side work's length.",
    ),
    figure(
        "cudagraphs_private_pool_bytes",
        "CUDA-graph private pool",
        "bytes",
        "lower",
        "Bytes of the memory snapshot's segments outside the default pool after a "
        "reduce-overhead function's calls (graphs recorded and replaying): the CUDA graphs' "
        "private pool.",
        f"{_ONE} {_CUDA}",
    ),
    figure(
        "host_rss_peak_bytes",
        "host RSS peak",
        "bytes",
        "lower",
        "The largest resident set size of the worker and its child processes (Inductor's "
        "compile workers), sampled every 20 ms by psutil.",
        "Sampled, so a short spike between samples is missed; other jobs' children are not in it.",
    ),
    figure(
        "host_rss_step_peak_bytes.*",
        "{} step: host RSS peak above its start",
        "bytes",
        "lower",
        "CPU runs: the highest RSS of the worker (sampled every 20 ms by psutil, and at the "
        "step's marks) from the mark before the sequence's step to its 'computed' mark, above "
        "the RSS at that earlier mark: its inputs made, the eager call with what it "
        "materialised, its output alive. Read it against the ideal, inputs + output. The "
        "largest over the repeats of a shape.",
        "Sampled: a spike shorter than 20 ms is missed. Memory the C allocator kept from an "
        "earlier step is reused without a rise, so a small step (a few MiB) reads near 0; "
        "steps of tens of MiB and up read their tensors.",
    ),
    figure(
        "num_alloc_retries",
        "allocator retries",
        "count",
        "lower",
        f"num_alloc_retries of {_STATS} over the job: cudaMalloc failures that freed the "
        f"cache and tried again.",
        f"{_ONE} {_CUDA}",
    ),
    figure(
        "num_ooms",
        "out-of-memory errors",
        "count",
        "lower",
        f"num_ooms of {_STATS} over the job.",
        f"{_ONE} {_CUDA}",
    ),
    figure(
        "baseline_allocated_bytes",
        "allocated when the job began",
        "bytes",
        "neither",
        f"allocated_bytes.all.current of {_STATS} before the first scenario.",
        f"{_ONE} {_CUDA}",
    ),
    figure(
        "final_allocated_bytes",
        "allocated after the job's cleanup",
        "bytes",
        "neither",
        "allocated_bytes.all.current after the job dropped everything: should equal the baseline.",
        f"More than the baseline is a leak of the job's own tensors. {_CUDA}",
    ),
    figure(
        "snapshots",
        "memory snapshots",
        "list",
        "neither",
        "Files of torch.cuda.memory._snapshot() per scenario, for PyTorch's memory viewer.",
        _TEXT,
    ),
    figure(
        "snapshots_before_empty_cache",
        "memory snapshots before empty_cache",
        "list",
        "neither",
        "The same scenarios' snapshots before their final empty_cache(): these still hold the "
        "segments.",
        _TEXT,
    ),
    figure(
        "skipped",
        "scenarios skipped",
        "list",
        "neither",
        "Scenarios not run, with why (most need CUDA).",
        _TEXT,
    ),
    figure("errors.*", "{} error", "text", "neither", "Why a scenario failed.", _TEXT),
    figure(
        "workload",
        "workload",
        "text",
        "neither",
        "The catalog workload the compiled scenario's calls ran.",
        "A user's workload of the same name may be other code: compare its sha256.",
    ),
    figure(
        "dims",
        "workload dims",
        "list",
        "neither",
        "The workload's named dims, as the catalog said when it ran.",
        "An input, not a measurement.",
    ),
    workload_params("allocator"),
    figure(
        "call_peak_bytes.*.ideal",
        "one call's peak at {}: ideal",
        "bytes",
        "neither",
        "Every input plus the output: what a call needs if it writes only its output.",
        "A model from the tensors' sizes, not a measurement.",
    ),
    figure(
        "call_peak_bytes.*.eager",
        "one call's peak at {}: eager",
        "bytes",
        "lower",
        f"Inputs plus the most allocated above them during one eager call ({_STATS}).",
        f"{_ONE} {_CUDA}",
    ),
    figure(
        "call_peak_bytes.*.compiled",
        "one call's peak at {}: compiled",
        "bytes",
        "lower",
        f"Inputs plus the most allocated above them during one compiled call after its warm "
        f"call ({_STATS}).",
        f"{_ONE} {_CUDA}",
    ),
    figure(
        "compile_warm_call_s.*",
        "{} warm compiled call (its compile)",
        "s",
        "lower",
        "Wall seconds of the first compiled call at this shape: any compile it triggered "
        "included (0 compiles when a graph of an earlier shape served it).",
        "One call, not a median: compile time moves by tens of percent with the host's load.",
    ),
)
