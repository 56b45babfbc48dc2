"""What each of recompiles' key figures is: label, unit, which way is better, how taken, when not to trust."""

from __future__ import annotations

from functools import partial

from runtime_lab.glossary.figure import Figure

figure = partial(Figure, "recompiles")

_SEQUENCE = "over the shape sequence, one call per entry, Dynamo reset before each mode"
_COUNT = (
    "A count of this sequence, not a sample: it is exact, but only for this sequence and "
    "torch version (a longer sequence or another order compiles differently)."
)
_GRAPHS = "(graphs, recompiles and guards, CUDA graphs)"

HEADLINE = ("unique_graphs.*",)  # what a History label quotes of a run (registry.headline_keys)

FIGURES = (
    figure(
        "unique_graphs.*",
        "{} graphs",
        "count",
        "lower",
        f"Dynamo's counters['stats']['unique_graphs'] {_SEQUENCE}.",
        _COUNT,
    ),
    figure(
        "recompiles.*",
        "{} recompiles",
        "count",
        "lower",
        f"Calls whose guards failed and that compiled a new graph {_SEQUENCE} (the first "
        f"compile is not a recompile).",
        _COUNT,
    ),
    figure(
        "recompile_reasons.*",
        "{} recompile reasons",
        "list",
        "neither",
        "The guard failure Dynamo gave for each recompile (or the stance's reason), in call order.",
        "Dynamo's words, which change between torch versions.",
    ),
    figure(
        "compile_s.*",
        "{} compile time",
        "s",
        "lower",
        f"The sum of Dynamo's own compile time of every compile {_SEQUENCE}.",
        "Compile time moves by tens of percent with the host's load and with the caches a "
        "worker already filled; a count of compiles is the steadier figure.",
    ),
    figure(
        "cache_hits.*",
        "{} cache hits",
        "count",
        "higher",
        f"Calls served by an already compiled frame (its guards passed) {_SEQUENCE}.",
        _COUNT,
    ),
    figure(
        "graph_breaks.variant",
        "graph-break variant",
        "text",
        "neither",
        "The function with a graph break the what-if compiled (the graph_break option).",
        "Never a number.",
    ),
    figure(
        "graph_breaks.unique_graphs",
        "graph-break variant: graphs",
        "count",
        "lower",
        "Dynamo's unique graphs after one call of the graph-break variant (fullgraph=False).",
        _COUNT,
    ),
    figure(
        "graph_breaks.graph_breaks",
        "graph-break variant: graph breaks",
        "count",
        "lower",
        "Dynamo's counters['graph_break'] after one call of the graph-break variant.",
        _COUNT,
    ),
    figure(
        "graph_breaks.reasons",
        "graph-break variant: reasons",
        "list",
        "neither",
        "Each graph break's reason as Dynamo counted it, with how many times.",
        "Dynamo's words, which change between torch versions.",
    ),
    figure(
        "graph_breaks.fullgraph_error",
        "graph-break variant: fullgraph=True error",
        "text",
        "neither",
        "What the same function raised under fullgraph=True (type and message).",
        "Never a number.",
    ),
    figure(
        "graph_breaks.error",
        "graph-break variant: error",
        "text",
        "neither",
        "Why the graph-break what-if itself failed, if it did.",
        "Never a number.",
    ),
    figure(
        "graph_breaks.per_mode.*",
        "{} graph breaks",
        "count",
        "lower",
        f"Dynamo's graph breaks in each mode's own run {_SEQUENCE}.",
        _COUNT,
    ),
    figure(
        "recompile_limit.*.limit",
        "{} recompile limit",
        "count",
        "neither",
        "torch._dynamo.config.recompile_limit for the run (the recompile_limit option).",
        "An input, not a measurement.",
    ),
    figure(
        "recompile_limit.*.compiles",
        "{} compiles against the recompile limit",
        "count",
        "lower",
        f"Successful compiles (frames in the cache) {_SEQUENCE}.",
        _COUNT,
    ),
    figure(
        "recompile_limit.*.hit",
        "{} hit the recompile limit",
        "flag",
        "neither",
        "Whether a call hit recompile_limit: Dynamo then ran it eager, or raised under fullgraph.",
        "Never a number; the state says what hitting it did.",
    ),
    figure(
        "recompile_limit.*.state",
        "{} state at the recompile limit",
        "text",
        "neither",
        "What hitting the limit did, in words (eager fallback, or the error).",
        "Never a number.",
    ),
    figure(
        "failed_modes.*",
        "{} failed",
        "text",
        "neither",
        "Why a mode failed; its figures are left out of every other key.",
        "Never a number.",
    ),
    figure(
        "workload",
        "workload",
        "text",
        "neither",
        "The catalog workload the sequence ran.",
        "A user's workload of the same name may be other code: compare its sha256.",
    ),
    figure(
        "marked_dims",
        "marked dims",
        "list",
        "neither",
        "The workload's dims that the mark_* modes marked dynamic.",
        "An input, not a measurement.",
    ),
    figure(
        "stance.stance",
        "stance",
        "text",
        "neither",
        "The torch.compiler.set_stance applied after the first call (the stance option).",
        "An input, not a measurement.",
    ),
    figure(
        "stance.eager.*",
        "{} calls the stance ran eager",
        "count",
        "neither",
        "Calls after the first that the stance ran eager where they would have compiled.",
        _COUNT,
    ),
    figure(
        "stance.failed.*",
        "{} calls the stance made fail",
        "count",
        "neither",
        "Calls after the first that raised because of the stance (fail_on_recompile).",
        _COUNT,
    ),
    figure(
        "cudagraphs.warmup",
        "reduce-overhead calls warmed up (CUDA graphs)",
        "count",
        "neither",
        f"Calls of the reduce-overhead what-if that cudagraph trees ran as warm-up {_GRAPHS}.",
        _COUNT,
    ),
    figure(
        "cudagraphs.recorded",
        "reduce-overhead calls recorded (CUDA graphs)",
        "count",
        "lower",
        "Calls that recorded a new CUDA graph: each costs a recording and pool memory.",
        _COUNT,
    ),
    figure(
        "cudagraphs.replayed",
        "reduce-overhead calls replayed (CUDA graphs)",
        "count",
        "higher",
        "Calls that replayed a recorded CUDA graph: the launch overhead reduce-overhead saves.",
        _COUNT,
    ),
    figure(
        "cudagraphs.skipped",
        "reduce-overhead calls skipped (CUDA graphs)",
        "count",
        "lower",
        "Calls cudagraph trees would not graph (a dynamic shape, a CPU tensor …): they ran "
        "without a graph.",
        _COUNT,
    ),
    figure(
        "cudagraphs.pool_bytes",
        "reduce-overhead CUDA-graph pool",
        "bytes",
        "lower",
        "Total size of the memory snapshot's segments in cudagraph trees' private pool "
        "(segment_pool_id) after the reduce-overhead run.",
        "A snapshot after the run: the pool grows with each recorded shape, so it depends on "
        "the sequence.",
    ),
)
