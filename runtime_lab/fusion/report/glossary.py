"""What each of fusion's key figures is: label, unit, which way is better, how taken, when not to trust."""

from __future__ import annotations

from functools import partial

from runtime_lab.glossary.figure import Figure, workload_params

figure = partial(Figure, "fusion")

# shared sentences: the steady-state clock and the caveats every timed figure carries
_STEADY = (
    "Median of the timed calls (default 50, after 10 warm-up calls) under the lab's harness: "
    "CUDA events around each call with a 256 MiB L2 flush before it on a GPU, host wall time "
    "per call (64 MiB flush) on a CPU."
)
_HOST = (
    "the run is flagged noisy (IQR/median > 10 %), contended (other processes took > 25 % of "
    "the CPU) or its process probe is flagged; a CPU run's host time moves with the core it "
    "lands on."
)
_BYTES = "the bytes model (what each mode reads and writes at the tensors' real sizes)"
_COMPILE = (
    "it is one wall-clock call, not a median: compile times move by tens of percent between "
    "runs with the host's load and disk cache; compare them only between runs on one host."
)

# max-autotune's choices (issue 40): read from Inductor while the mode's first call compiles
_AUTOTUNED = (
    "Recorded while the max-autotune mode's first call compiled, on CUDA: Inductor benchmarks "
    "each GEMM or template's candidates (Triton templates with their BLOCK_M/N/K, num_stages "
    "and num_warps; extern ATen kernels, cuBLAS for mm; others such as decompose-k) and keeps "
    "the fastest; the lab reads them from Inductor's feedback hook and its printed AUTOTUNE block."
)
AUTOTUNE = (
    figure(
        "autotune",
        "autotune choices",
        "list",
        "neither",
        f"{_AUTOTUNED} Per op: the mode, the op with its input sizes, every choice (name, kind, "
        "config, time in ms, winner), the best Triton and best extern choice and the seconds.",
        "Benchmark times are Inductor's own (a few calls each, inputs it made), not the lab's "
        "timing; with benchmark-epilogue fusion Inductor may still swap the winner at fusion "
        "time. An op whose times came from Inductor's autotune cache was not benchmarked "
        "itself: an op of the same shapes was, by an earlier job or earlier in the compile.",
    ),
    figure(
        "autotune_s.*.*",
        "{} autotune time of {}",
        "s",
        "lower",
        f"{_AUTOTUNED} Seconds Inductor reports for benchmarking the op's choices "
        "('AUTOTUNE benchmarking takes … seconds'), precompiling not included.",
        "One wall-clock figure, not a median: it moves with the host's load and the compile "
        "workers' start; absent when the choices came from Inductor's autotune cache.",
    ),
    figure(
        "triton_vs_extern.*.*",
        "{} best Triton ÷ best extern (cuBLAS) time, {}",
        "x",
        "neither",
        f"{_AUTOTUNED} The fastest Triton template's benchmark time over the fastest extern "
        "(ATen: cuBLAS) choice's: above 1 the Triton template is slower, below 1 faster.",
        "Two of Inductor's benchmark times, each over a few calls on its own inputs: a ratio "
        "within a few percent of 1 is a tie; the shapes Inductor tuned are the op's as compiled.",
    ),
    figure(
        "autotune_note.*",
        "{} why no autotune choices",
        "text",
        "neither",
        f"{_AUTOTUNED} When it benchmarked none: a cache served the compile (Inductor's FX graph "
        "cache, or a function compiled by an earlier job in the worker), or the workload has "
        "no GEMM or template to tune.",
        "Says why the table is empty; clear Inductor's cache (or run in a fresh data directory) "
        "to see the choices benchmarked.",
    ),
)

# the compile cache a first call or compile ran with (issue 49): one sentence per state
_CACHE = (
    "The compile cache the call ran with: 'empty' (no entry in its cache folders: a first "
    "compile on a new machine), 'cold' (entries, none for this graph), 'warm from run #N' "
    "(it found Inductor's FX graph and AOTAutograd entries that this lab's run #N wrote; "
    "'this run' when the job wrote them itself, 'an earlier compile outside this lab's "
    "stored runs' when no stored run did), 'partly warm from …' (some of its graphs), 'warm "
    "in this worker' (already compiled in the process: no compile) or 'no Inductor cache' "
    "(backend eager). Read from the cache folders' entries before the call, Inductor's own "
    "hit and miss log lines during it, and the lab's record of which job wrote each entry."
)
_CACHE_TRUST = (
    "The state names the disk caches (FX graph, AOTAutograd) and Dynamo's: Inductor's "
    "in-memory code caches and Triton's own cache are not counted, and a writer the lab did "
    "not record (another experiment, a process outside the lab) is named as outside its runs."
)
CACHE_STATES = (
    figure(
        "first_call_s.*",
        "{} first call (compile included)",
        "s",
        "lower",
        "Wall seconds of the mode's first call in the job, synchronised: trace, compile (or "
        "cache lookups and load) and run. The naive A/B's compiled arm compiles with empty cache "
        "folders of its own; every other mode with the worker's persistent caches, as earlier "
        "runs left them: its cache state says which. A run that took its compile figures from "
        "an earlier one (compile_from_run) runs that arm with the persistent caches too: this is "
        "its own first call, the naive A/B's cold one is the earlier run's.",
        f"Read it with its cache state: a warm cache makes it a load, not a compile; {_COMPILE}",
    ),
    figure(
        "first_call_cache_state.*",
        "{} first call's compile cache",
        "text",
        "neither",
        _CACHE,
        _CACHE_TRUST,
    ),
    *(
        figure(
            f"{name}_cache_state",
            f"{label}: compile cache",
            "text",
            "neither",
            _CACHE,
            _CACHE_TRUST,
        )
        for name, label in (
            ("cold_compile", "cold compile"),
            ("warm_cache_compile", "warm-cache compile"),
            ("warm_process", "warm-process call"),
            ("fresh_process", "fresh-process first call"),
            ("mega_cache", "mega-cache load + compile"),
            ("naive_speedup", "naive A/B's compiled first call"),
        )
    ),
)

REUSE = (
    figure(
        "compile_from_run",
        "compile figures from run",
        "number",
        "neither",
        "The stored run whose compile latency (cold, warm-cache, warm-process, fresh-process, "
        "mega-cache and the naive A/B's cold first call) and compile evidence (trace, "
        "provenance) this run holds: a run on this machine whose spec differed only in warm-up, "
        "timed calls, L2 flush or seed, so it compiled the same graphs. The server copies them "
        "in when it stores the run (each record names that run: measured_in_run); this run "
        "compiles nothing cold and traces nothing. Absent: this run measured its own.",
        "Those figures are that run's, taken at its time on this host: the host's load and disk "
        "cache then, not now. Run with reuse_compile off (or Measure again) to measure them "
        "afresh.",
    ),
)

HEADLINE = ("measured_speedup",)  # what a History label quotes of a run (registry.headline_keys)

FIGURES = (
    figure(
        "steady_state_ms.*",
        "{} steady-state time",
        "ms",
        "lower",
        f"{_STEADY} Device time where there is one, else host time.",
        f"The call is tiny (tens of µs: launch overhead dominates and the loop figure says more), "
        f"or {_HOST}",
    ),
    figure(
        "achieved_gbps.*",
        "{} achieved bandwidth",
        "GB/s",
        "higher",
        f"The mode's bytes per call from {_BYTES}, over its steady-state median time.",
        "A model, not a counter: a mode that moves more or fewer bytes than the model says "
        "(an extra kernel, a cached input) reads too low or too high; on a CPU the caches hold "
        "small tensors, so above the ceiling is possible.",
    ),
    figure(
        "loop_us_per_call.*",
        "{} time per call in a loop",
        "us",
        "lower",
        "200 calls back to back (fewer for a slow call) with one event pair around the loop, no "
        "flush: its time over the calls, launch overhead included; the median of up to 20 loops "
        "within 0.25 s (at least 5) after an untimed loop.",
        "Host-bound figures move between processes by the core a process lands on (29-43 µs "
        "per eager 256² call on the H200's VM); compare loops from one process, and read the "
        "process probe.",
    ),
    figure(
        "kernel_us_per_call.*",
        "{} GPU time per call (kernels)",
        "us",
        "lower",
        "CUDA only: the profiler's kernel and copy durations over the profiled warm calls, "
        "summed per call: what the GPU itself spent on one call, the gaps between its "
        "kernels left out.",
        "The profiled calls run back to back without the L2 flush, so a working set that fits "
        "the L2 gives shorter kernels than the flushed timing. Well under the steady-state time, "
        "the call is host-bound: every per-call clock then reads how far its process's host got "
        "ahead of the GPU, and moves between processes with the host.",
    ),
    figure(
        "clocks.*.*",
        "{} median under {}",
        "ms",
        "lower",
        "The same mode under another clock: the lab's harness, torch.utils.benchmark's Timer "
        "(host clock around blocks of back-to-back calls, synchronised at each block's end, no "
        "flush) and triton.testing.do_bench (CUDA events, its own L2 flush) where Triton runs; "
        "each clock's median.",
        "A clock further from the lab's median than max(5 %, the lab's IQR/median) (≥ 2048² "
        "elements) or the lab's IQR/median (smaller calls, where launch overhead and caches make "
        "the clocks differ by design) is flagged; where the lab's own spread is too wide to "
        "judge, the report says so instead of 'agrees'.",
    ),
    figure(
        "cold_compile_s",
        "cold compile",
        "s",
        "lower",
        "Wall seconds of the compiled mode's first call after Dynamo's reset, with fresh, empty "
        "Inductor and Triton cache directories: trace, compile and run, synchronised. Since "
        "issue 49, the mode's own first call in the job where that compiled with empty cache "
        "folders of its own (the naive A/B's arm): one compile for both figures.",
        f"The compiler's one-time set-up was warmed by the worker (the report's worker line "
        f"says so; the CLI's own CPU worker does not warm it, and its first compile pays it "
        f"here); {_COMPILE}",
    ),
    figure(
        "warm_cache_compile_s",
        "warm-cache compile",
        "s",
        "lower",
        "Wall seconds of the first call after Dynamo's reset with the persistent caches of the "
        "data directory filled (filled first if empty): trace, cache lookups, load and run. "
        "Its cache state names the run whose compile filled them (this run, or an earlier one).",
        _COMPILE,
    ),
    figure(
        "warm_process_s",
        "warm-process call",
        "s",
        "lower",
        "Wall seconds of a second call of the already compiled function in the same process: "
        "guard checks and the run only.",
        "One synchronised call, not a median: for the steady state read the steady-state time.",
    ),
    figure(
        "fresh_process_s",
        "fresh-process first call",
        "s",
        "lower",
        "A new Python interpreter with empty caches: import, device init, cold compile and "
        "first call, wall seconds (pointwise workload only).",
        f"It includes importing torch, which the disk cache and the host's load move; {_COMPILE}",
    ),
    figure(
        "mega_cache_s",
        "mega-cache load + compile in a fresh process",
        "s",
        "lower",
        "One fresh process compiles and saves torch's portable compile caches; a second fresh "
        "process with other empty cache dirs loads them and compiles: its wall seconds.",
        f"The report says whether the load hit Inductor's FX graph cache: a miss is a cold "
        f"compile again; {_COMPILE}",
    ),
    figure(
        "mega_cache_artifact_bytes",
        "mega-cache artefact size",
        "bytes",
        "lower",
        "Size of the artefacts torch.compiler.save_cache_artifacts returned in the saving process.",
        "It depends on the torch version and what was compiled, not on speed.",
    ),
    figure(
        "measured_speedup",
        "measured speed-up (eager ÷ compiled)",
        "x",
        "higher",
        "Eager's steady-state median over the compiled mode's (inductor where it ran): above 1 "
        "the compiled mode is faster.",
        f"Either median is untrustworthy: {_HOST}",
    ),
    figure(
        "predicted_speedup",
        "predicted speed-up (bytes model)",
        "x",
        "neither",
        "Eager's bytes over the ideal bytes (each input read once, each output written once): "
        "the speed-up fusion promises if both are bound by memory bandwidth; older runs: "
        "eager's element transfers over the fused 3.",
        "The workload is compute-bound or the call is launch-bound: then bytes do not set the "
        "time. A model, never a measurement.",
    ),
    figure(
        "naive_speedup",
        "naive A/B speed-up",
        "x",
        "neither",
        "What an A/B without warm-up would claim: (eager first call + k·eager median) over "
        "(compiled first call, its compile included, + k·compiled median), k the timed calls. "
        "The compiled first call compiles with empty cache folders of its own (since issue "
        "49): what a program sees the first time it compiles this graph, whatever ran before; "
        "its cache state says so (runs before: the cache as the last run left it).",
        "Always: it is shown to say what a naive benchmark gets wrong, not as a result.",
    ),
    figure(
        "cuda_graph_loop_speedup",
        "CUDA-graph loop speed-up",
        "x",
        "higher",
        "Eager's loop time per call over the eager CUDA graph's replay (cuda-graph mode).",
        "Either loop is host-bound and the processes differ: loop figures move with the core.",
    ),
    figure(
        "cuda_graph_inductor_loop_speedup",
        "CUDA-graph inductor loop speed-up",
        "x",
        "higher",
        "Eager's loop time per call over the compiled CUDA graph's (cuda-graph-inductor mode).",
        "Either loop is host-bound and the processes differ: loop figures move with the core.",
    ),
    figure(
        "max_abs_diff",
        "max |Δ| against eager",
        "number",
        "lower",
        "The largest elementwise |mode output − eager output| over every mode, in the output's "
        "own units, from the correctness check before anything is timed.",
        "Compare it with the dtype's tolerance, not with zero: bf16 and fp16 differ in the last "
        "bits between kernels by design. Since issue 41 a mode is judged against float64 "
        "(max_err_fp64), not against eager.",
    ),
    figure(
        "max_err_fp64.*",
        "{} max error against float64",
        "number",
        "lower",
        "The largest elementwise |mode output − float64 reference| (the workload's reference, "
        "else fn on float64 copies of the inputs), in the output's own units, from the check "
        "before anything is timed.",
        "Read it against the mode's allowed error, not against zero: bf16 and fp16 round every "
        "output, and a reduction adds its accumulation error.",
    ),
    figure(
        "allowed_err_fp64.*",
        "{} allowed error against float64",
        "number",
        "neither",
        "What the rule that decided allowed: the float64 bound C · (eps(dtype) + eps(float32) · "
        "√K) · max |reference| (C = 2, K the sum of the workload's reduction lengths), else "
        "eager's own error plus one epsilon of the largest output; on a failure the more "
        "lenient of the two (docs/measurement.md).",
        "In bf16 and fp16 an error of one or two ulps of the largest output (1 % in bf16) is "
        "within it: the bound tells a wrong answer (a dropped term, a wrong index) from "
        "rounding, not a slightly biased one.",
    ),
    figure(
        "tolerance_rule.*",
        "{} tolerance rule",
        "text",
        "neither",
        "The rule that decided: 'float64 bound' or 'no worse than eager' (the one passed, or "
        "on a failure the more lenient one), 'finite output' or 'output shape'.",
        "'no worse than eager' passes a mode as wrong as eager: read eager's error too.",
    ),
    figure(
        "outside_tolerance",
        "modes outside tolerance",
        "list",
        "neither",
        "The modes whose answer failed the check; each is timed all the same where its output "
        "is finite, and the headline says its speed is of a wrong answer.",
        "A mode in this list has figures: do not quote them as a speed-up.",
    ),
    figure(
        "not_timed.*",
        "{} not timed",
        "text",
        "neither",
        "Why a mode that could run has no time: an exception (its first line), NaN or "
        "infinite values where float64 has numbers, or an output of another shape.",
        "The mode's other figures (kernels, compile) are missing too.",
    ),
    figure(
        "copy_ceiling_gbps",
        "copy ceiling",
        "GB/s",
        "higher",
        "Device-to-device copy of 1 GiB (256 MiB on a CPU): read + write bytes over the median "
        "of 30 calls after 5 warm-up; measured once per device and torch, cached in the data dir.",
        "A copy's byte pattern is not the workload's (one stream read, one written); the "
        "ceiling the report uses is the better of the copy and the add.",
    ),
    figure(
        "add_gbps",
        "add bandwidth",
        "GB/s",
        "higher",
        "torch.add(x, y, out=z) over 6 GiB in bf16 on a GPU (256 MiB on a CPU): 2 reads and 1 "
        "write over the median of 30 calls; measured once per device and torch, cached.",
        "A run on a busy GPU, or a cached entry from before a driver change: delete the cache "
        "to measure it again.",
    ),
    figure(
        "ceiling_gbps",
        "bandwidth ceiling",
        "GB/s",
        "higher",
        "The best measured bandwidth: the better of the copy and the add (older runs: the copy).",
        "See the copy and add figures: a ceiling measured on a busy device is too low, and a "
        "mode then reads above 100 % of it.",
    ),
    figure(
        "ceiling_source",
        "what measured the bandwidth ceiling",
        "text",
        "neither",
        "Which measurement gave the ceiling: copy or add.",
        "Never a number; it names the measurement.",
    ),
    figure(
        "theoretical_gbps",
        "theoretical bandwidth",
        "GB/s",
        "higher",
        "Bus width / 8 × memory clock × 2 (double data rate), from the device properties or NVML.",
        "A datasheet peak no kernel reaches; missing where the device does not report both numbers.",
    ),
    figure(
        "max_ceiling_pct",
        "best share of the ceiling",
        "%",
        "higher",
        "The best mode's achieved bandwidth over the measured ceiling, in percent.",
        "Above 100 % means the bytes model or the ceiling is off (the report calls out a mode "
        "more than 1 % above it), not a kernel faster than memory.",
    ),
    figure(
        "compiled_mode",
        "compiled mode",
        "text",
        "neither",
        "The compiled mode the headline figures are of: inductor where it ran, else the first "
        "inductor mode that ran.",
        "Never a number; it names a mode.",
    ),
    figure(
        "eager_kernel_names",
        "eager kernels",
        "list",
        "neither",
        "The kernels the profiler saw in eager's profiled calls (after timing).",
        "On a CPU these are the profiler's CPU ops, not device kernels.",
    ),
    figure(
        "compiled_kernel_names",
        "compiled kernels",
        "list",
        "neither",
        "The kernels the profiler saw in the compiled mode's profiled calls (after timing).",
        "On a CPU these are the profiler's CPU ops, not device kernels.",
    ),
    figure(
        "training_pass",
        "pass",
        "text",
        "neither",
        "Which pass of a training step each mode timed: fwd (the forward alone), bwd (the "
        "backward alone, its forward run outside the timed region with the graph retained) or "
        "fwd_bwd (both); bwd and fwd_bwd give the workload's floating inputs requires_grad.",
        "Never a number; compare times only between runs of the same pass.",
    ),
    figure(
        "forward_kernels.*",
        "{} forward kernels per call",
        "count",
        "lower",
        "Launches per call inside the step's forward range of the profiled calls (after "
        "timing): device kernels on a GPU, compute ops on a CPU. In eager the ops of the "
        "forward; compiled, the kernels of AOTAutograd's forward graph.",
        "None for bwd (its timed call runs no forward); on a CPU these are the profiler's ops, "
        "views and casts included, not device kernels.",
    ),
    figure(
        "backward_kernels.*",
        "{} backward kernels per call",
        "count",
        "lower",
        "Launches per call inside the step's backward range of the profiled calls: eager's "
        "autograd ops (autograd::engine::evaluate_function), or the kernels of the compiled "
        "backward graph (CompiledFunctionBackward) with the gradients' own bookkeeping. "
        "Gradients are set to None before each call, so none accumulates.",
        "On a CPU these are the profiler's ops, views and casts included; a kernel launched "
        "outside the step's ranges (none is, today) would be counted in neither pass.",
    ),
    figure(
        "backward_kernel_names.*",
        "{} backward kernels",
        "list",
        "neither",
        "The kernels the profiler saw in the mode's backward range (after timing).",
        "On a CPU these are the profiler's CPU ops, not device kernels.",
    ),
    figure(
        "grad_rel_err_fp64.*",
        "{} gradient error against float64",
        "number",
        "lower",
        "The deciding gradient's largest absolute difference from the same backward run over "
        "float64 copies of the inputs (the same upstream gradient), over its largest float64 "
        "value. The deciding gradient is the one nearest to (or furthest over) its allowance; "
        "runs before the gradients had the bound: the largest over every gradient.",
        "Relative to that gradient's largest value: read it against the allowed error, not "
        "against zero (bf16 rounds every gradient, and its reductions add their own error).",
    ),
    figure(
        "grad_max_err_fp64.*",
        "{} gradient max error against float64",
        "number",
        "lower",
        "The deciding gradient's largest elementwise |gradient − float64 gradient|, in its own "
        "units: each gradient is judged as an output is, before anything is timed "
        "(docs/measurement.md, the gradients).",
        "One gradient's figure (the one nearest its allowance): the Evidence table's gradients "
        "row has every gradient's.",
    ),
    figure(
        "grad_allowed_err_fp64.*",
        "{} gradient allowed error against float64",
        "number",
        "neither",
        "What the deciding gradient's rule allowed: the float64 bound C · (eps(dtype) + "
        "eps(float32) · √K) · max |float64 gradient| with K the sum of that gradient's own "
        "reduction lengths (a weight's adds the tokens it sums over), else eager's gradient "
        "error plus one epsilon of its largest value.",
        "K per gradient is declared by the workload or derived (the forward's lengths plus the "
        "dimensions a broadcast input's gradient sums over): a user's workload gets the "
        "derived one, which may be loose for a GEMM.",
    ),
    figure(
        "grad_tolerance_rule.*",
        "{} gradient tolerance rule",
        "text",
        "neither",
        "The rule that decided the deciding gradient: 'float64 bound' or 'no worse than eager', "
        "'finite output' or 'output shape' (the gradient could not be judged), 'gradient "
        "missing' (autograd gave none where float64's backward did).",
        "'no worse than eager' passes a gradient as wrong as eager's: in bf16 eager's backward "
        "rounds every intermediate, and some of its gradients miss the float64 bound.",
    ),
    figure(
        "grads_outside_tolerance",
        "gradients outside tolerance",
        "list",
        "neither",
        "Each gradient that failed its check, as 'mode: input' (the input it is the gradient "
        "of); the mode is timed all the same, and the headline says its speed is of a wrong "
        "answer.",
        "A mode in this list has figures: do not quote them as a speed-up.",
    ),
    figure(
        "sm_clock_mhz.*",
        "{} SM clock while timed",
        "MHz",
        "neither",
        "The median of the GPU's SM clock read through NVML every 20 ms (and at the end) while "
        "the mode's timed calls ran; the card's highest clock is in the run's JSON.",
        "Two figures timed at clocks more than 3 % apart differ by that much before any code "
        "does: the verdict doubts a speed-up whose arms were, and the catalog names it beside "
        "lab ÷ clean. A GEMM chain held at the power cap runs below a short kernel's clock.",
    ),
    figure(
        "power_capped_pct.*",
        "{} time power-capped while timed",
        "%",
        "lower",
        "The share of the mode's timed calls during which NVML counted the clock held down by the "
        "power cap (its violation-time counter, read at both ends of the phase).",
        "Not a fault: a card at its power limit is how long GEMM chains run in training. Compare "
        "figures only between runs with a similar share. Absent where the driver does not count it.",
    ),
    figure(
        "step_ideal_bytes",
        "the step's ideal bytes",
        "bytes",
        "neither",
        "The least a training step must move, each tensor once: the backward reads grad_output "
        "and what the leanest mode's forward saved for it (the inputs it kept included) and "
        "writes the gradients; in fwd_bwd also the forward's ideal bytes and those saved "
        "activations written. The leanest mode is the one that saved the fewest bytes "
        "(AOTAutograd's partitioner, typically, not eager's every node).",
        "A model, not a measurement: a backward that reduces over two axes (a norm's weight "
        "gradient) reads some tensors twice in any real kernel split.",
    ),
    figure(
        "step_gbps.*",
        "{} bandwidth over the step's ideal bytes",
        "GB/s",
        "higher",
        "The step's ideal bytes over the mode's steady-state step time: the bandwidth the step "
        "would need to take that long moving only what it must.",
        "Read it against the measured ceiling; eager moves more than the ideal, so its figure "
        "is an effective bandwidth, not what its kernels achieved.",
    ),
    figure(
        "step_ceiling_pct.*",
        "{} step bandwidth, % of the ceiling",
        "%",
        "higher",
        "step_gbps as a share of the run's measured bandwidth ceiling (the better of copy and add).",
        "Near or above 100 %: the working set stayed in cache or the model counts a tensor the "
        "step never needed.",
    ),
    figure(
        "saved_tensors.*",
        "{} tensors saved for backward",
        "count",
        "lower",
        "Tensors the mode's forward packed for its backward, counted by autograd's "
        "saved_tensors_hooks on one more untimed step: eager's autograd nodes save theirs one "
        "by one; a compiled mode's CompiledFunction saves what AOTAutograd's partitioner kept "
        "from the joint graph (recomputing cheap ops in the backward instead).",
        "A tensor two nodes save counts twice; read saved_bytes for memory.",
    ),
    figure(
        "saved_bytes.*",
        "{} saved for backward",
        "bytes",
        "lower",
        "The storages the tensors saved for backward keep alive, each once (a view keeps its "
        "base's whole storage), the step's inputs included: what the allocator holds between "
        "the forward and the backward on their account.",
        "Storage bytes, not the allocator's blocks (rounded up, cached); intermediates that "
        "live only inside the forward or the backward are not counted: see the allocator "
        "experiment's curve for the step's peak.",
    ),
    figure(
        "saved_activation_bytes.*",
        "{} saved activations",
        "bytes",
        "lower",
        "Of saved_bytes, the storages that are not the step's inputs: the activations the "
        "forward leaves for the backward, which a training step holds on top of its inputs and "
        "weights.",
        "A view of an input counts as the input (its storage is the input's).",
    ),
    figure(
        "workload",
        "workload",
        "text",
        "neither",
        "The catalog workload every mode ran (python -m runtime_lab workloads).",
        "A user's workload of the same name may be other code: compare its sha256.",
    ),
    figure(
        "variant",
        "workload",
        "text",
        "neither",
        "The workload the kernel figures are of (its name before the catalog: variant).",
        "Never a number; it names the workload.",
    ),
    workload_params("fusion"),
    figure(
        "bound",
        "bound by",
        "text",
        "neither",
        "What the catalog expects to limit the workload: memory or compute.",
        "The catalog's expectation for its default shapes; a tiny shape is launch-bound instead.",
    ),
    figure(
        "ideal_bytes",
        "ideal bytes per call",
        "bytes",
        "neither",
        "Each input read once and each output written once: the bytes a fully fused call moves.",
        "A model: weights that stay in cache or recomputation are not in it.",
    ),
    figure(
        "eager_bytes",
        "eager bytes per call",
        "bytes",
        "lower",
        "What eager's op list reads and writes, op by op, at the tensors' real sizes.",
        "A model from the op list, not a hardware counter; caches can serve part of it.",
    ),
    figure(
        "flops_per_call",
        "FLOPs per call",
        "count",
        "neither",
        "The workload's floating-point operations per call, as its catalog entry counts them.",
        "A count of the math, not of what a kernel executes (masked or padded work is not in it).",
    ),
    figure(
        "arithmetic_intensity",
        "arithmetic intensity",
        "FLOP/B",
        "neither",
        "FLOPs per call over the ideal bytes per call.",
        "A model on both sides: it places the workload on the roofline, it does not measure it.",
    ),
    figure(
        "achieved_tflops.*",
        "{} achieved TFLOP/s",
        "TFLOP/s",
        "higher",
        "The workload's FLOPs per call over the mode's steady-state median time.",
        f"The workload is memory-bound (then GB/s says more), or {_HOST}",
    ),
    figure(
        "matmul_tflops",
        "matmul ceiling",
        "TFLOP/s",
        "higher",
        "An n × n × n matmul (2n³ FLOPs) in the job's dtype at its median time, L2 not flushed: "
        "the measured compute ceiling.",
        "Missing where its buffers do not fit; a busy device reads low.",
    ),
    figure(
        "peak_tflops",
        "datasheet peak",
        "TFLOP/s",
        "higher",
        "The datasheet's dense peak for this GPU and dtype, where the lab knows the GPU.",
        "A datasheet number, not measured here; boost clocks and power limits decide what runs.",
    ),
    figure(
        "kernel_registers.*",
        "{} registers per thread (its longest kernel)",
        "count",
        "lower",
        "Registers per thread of the mode's kernel with the most time per call, from the "
        "profiler's launch record, else Triton's metadata.",
        "Missing for library kernels whose metadata the lab cannot read.",
    ),
    figure(
        "kernel_spilled_registers.*",
        "{} spilled registers (its longest kernel)",
        "count",
        "lower",
        "Registers the compiler spilled to local memory in the mode's longest kernel (Triton's "
        "metadata).",
        "Known only for Triton kernels; None is unknown, not zero.",
    ),
    figure(
        "kernel_occupancy_pct.*",
        "{} theoretical occupancy (its longest kernel)",
        "%",
        "higher",
        "Resident warps over the SM's maximum for the mode's longest kernel, from the CUDA "
        "occupancy calculator with its block size, registers and shared memory.",
        "Theoretical: achieved occupancy can be lower, and more occupancy is not always faster.",
    ),
    figure(
        "kernel_limiting_resource.*",
        "{} occupancy limited by (its longest kernel)",
        "text",
        "neither",
        "What caps the longest kernel's occupancy: registers, shared memory, warps or blocks.",
        "Follows the occupancy figure: theoretical, from the kernel's launch resources.",
    ),
    *AUTOTUNE,
    *CACHE_STATES,
    *REUSE,
)
