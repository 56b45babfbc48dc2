"""A hand-made CUDA-like allocator result and its stored run, and the A/B child's output for two
configurations, for the tests that draw, compare or export allocator runs without a worker."""

import json
from dataclasses import replace

from runtime_lab.allocator.result import (
    AllocatorResult,
    CompareResult,
    EmptyCacheResult,
    GraphPoolResult,
    RssSample,
    SideStreamResult,
    SnapshotInfo,
    StepRecord,
    StreamBytes,
    TracePoint,
    WorkloadPeak,
)
from runtime_lab.allocator.run import ab
from runtime_lab.results import to_plain

MIB = 2**20
# (label, allocated after compute, reserved, peak) at each step, as on the H200 in MiB
STEPS = [("1024x1024", 12, 20, 20), ("4096x4096", 192, 340, 320), ("2048x2048", 48, 340, 80)]


def steps():
    found, t = [], 0.0
    for i, (label, alloc, reserved, peak) in enumerate(STEPS, start=1):
        for event, a in (("computed", alloc), ("after del", 0)):
            t += 0.1
            found.append(
                StepRecord(
                    "sequence", i, label, event, t, 900 * MIB, a * MIB, reserved * MIB, peak * MIB
                )
            )
    found.append(StepRecord("sequence", 3, "end", "after empty_cache", t + 0.1, 900 * MIB, 0, 0, 0))
    return found


def result(snapshot_file=""):
    trace = [
        TracePoint("sequence", i / 100, (i % 7) * MIB, 340 * MIB, 0, "alloc") for i in range(60)
    ]
    snap = SnapshotInfo(
        scenario="sequence",
        file=snapshot_file,
        entries=20000,
        max_entries=20000,
        segments=6,
        reserved_bytes=340 * MIB,
        allocated_bytes=0,
        inactive_bytes=340 * MIB,
        inactive_blocks=6,
        largest_inactive_bytes=64 * MIB,
        private_pool_bytes=0,
        streams=(StreamBytes("default", 340 * MIB, 320 * MIB),),
        peak_allocated_bytes=320 * MIB,
        peak_reserved_bytes=340 * MIB,
    )
    return AllocatorResult(
        device="cuda:0",
        dtype="float32",
        scenarios=("sequence", "compiled", "empty-cache", "side-stream", "cudagraphs"),
        sequence=tuple(s[0] for s in STEPS),
        compare_side=8192,
        steps=tuple(steps()),
        trace=tuple(trace),
        trace_points=25000,
        rss=tuple(RssSample(i / 10, (900 + i) * MIB, 0) for i in range(10)),
        snapshots=(snap,),
        compare=CompareResult((8192, 8192), 768 * MIB, 256 * MIB, 512 * MIB),
        empty_cache=EmptyCacheResult(
            3, 3, (3.0, 3.3, 3.6), (9.0, 9.3, 9.9), (0.4, 0.5, 0.6), 340 * MIB, 0
        ),
        side_stream=SideStreamResult(64 * MIB, True, False, 48000.0, 64 * MIB),
        graphs=GraphPoolResult((8192, 8192), 512 * MIB, 1024 * MIB, 256 * MIB, 768 * MIB, 0),
        num_alloc_retries=0,
        num_ooms=0,
        baseline_allocated_bytes=0,
        final_allocated_bytes=0,
        final_reserved_bytes=0,
    )


def run(result):
    return {
        "id": 7,
        "status": "done",
        "spec": {"experiment": "allocator", "shape": [1024, 1024], "dtype": "float32"},
        "env": {},
        "result": json.loads(json.dumps(to_plain(result))),
    }


def ab_step(i, shape, allocated, reserved, segments, expandable=0):
    return {
        "step": i,
        "shape": shape,
        "dtype": "float32",
        "allocated_bytes": allocated * MIB,
        "reserved_bytes": reserved * MIB,
        "peak_bytes": allocated * MIB,
        "segments": segments,
        "largest_free_bytes": (reserved - allocated) * MIB,
        "free_in_segments_bytes": (reserved - allocated) * MIB,
        "expandable_segments": expandable,
        "alloc_retries": 0,
    }


def ab_doc(steps, end_reserved):
    """The child's JSON document, as lab/child.run_module reads it."""
    return {"config": "", "steps": steps, "end": {"reserved_bytes": end_reserved, "segments": 1}}


AB_DEFAULT = ab_doc(
    [ab_step(1, [1024, 1024], 4, 20, 1), ab_step(2, [4096, 4096], 68, 148, 3)], 148 * MIB
)
AB_EXPANDABLE = ab_doc(
    [ab_step(1, [1024, 1024], 4, 20, 1, 1), ab_step(2, [4096, 4096], 68, 84, 1, 1)], 84 * MIB
)


def ab_configs():
    return (
        ab.parse("default", AB_DEFAULT),
        ab.parse("expandable_segments:True", AB_EXPANDABLE),
    )


# cross_entropy bf16 (tokens × vocab), shaped like a CUDA run: logits + int64 targets in,
# a 4-byte loss out; eager holds the fp32 copy and log_softmax's fp32 output at once
CE_SHAPES = ((1024, 32000), (4096, 32000))


def _ce_peak(tokens, vocab, cuda=True):
    inputs = tokens * vocab * 2 + tokens * 8
    eager = 2 * tokens * vocab * 4 + 512 if cuda else None
    compiled = 2 * 512 if cuda else None
    label = f"{tokens}x{vocab}"
    return WorkloadPeak(label, (tokens, vocab), "bfloat16", inputs, 4, eager, compiled, 2.5, 1, 0.0)


def workload_result(cuda=True):
    """The hand-made result as a cross_entropy run since the catalog (its compare: none)."""
    peaks = tuple(_ce_peak(t, v, cuda) for t, v in CE_SHAPES)
    base = result() if cuda else replace(result(), device="cpu", snapshots=(), trace=())
    return replace(
        base,
        dtype="bfloat16",
        compare=None,
        workload="cross_entropy",
        dims=("tokens", "vocab"),
        peaks=peaks,
    )
