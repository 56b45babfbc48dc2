"""Issue 19's device evidence: kernel resources and theoretical occupancy per kernel of eager,
inductor and max-autotune-no-cudagraphs at 256² and 16384², for both fusion variants (pointwise
and the long-chain what-if), through the lab's own job queue and worker.

Run: python -m scripts.evidence.occupancy_evidence [cuda|cpu] [OUT_DIR]
OUT_DIR (optional) keeps each run's JSON and its Chrome traces: recorded fixtures come from there."""

import json
import shutil
import sys
import time
from pathlib import Path

import pandas as pd

from benchmarks.harness import Bench, Finished
from runtime_lab import registry
from runtime_lab.fusion.report import kernel_table as fk
from runtime_lab.spec import build_spec

pd.set_option("display.width", 250, "display.max_columns", 30, "display.max_colwidth", 48)
device = sys.argv[1] if len(sys.argv) > 1 else "cuda"
out = Path(sys.argv[2]) if len(sys.argv) > 2 else None
MODES = "eager,inductor,inductor-max-autotune-no-cudagraphs"
SHAPES = ("256x256", "16384x16384") if device == "cuda" else ("256x256", "1024x1024")
SHOWN = [
    "mode",
    "kernel",
    "grid",
    "block",
    "registers_per_thread",
    "spilled_registers",
    "smem_bytes",
    "blocks_per_sm",
    "occupancy_pct",
    "limiting_resource",
    "profiler_occupancy_pct",
    "waves",
    "launches_per_call",
    "us_per_launch",
    "gbps",
    "triton_config",
]


def keep(finished: Finished, name: str) -> None:
    if out is None:
        return
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(finished.document(), default=str))
    for mode in finished.run.result["modes"]:
        trace = mode.get("trace_file")
        if trace and Path(trace).is_file():
            shutil.copy(trace, out / f"{name}-{mode['mode']}-trace.json")


def one(bench: Bench, shape: str, variant: str) -> None:
    options = {"modes": MODES, "variant": variant, "compile_latency": False, "compile_trace": False}
    start = time.perf_counter()
    finished = bench.run(build_spec("fusion", shape, device=device, options=options))
    job, took = finished.job, time.perf_counter() - start
    print(f"\n== fusion {variant} {shape} {device}: {job.state} in {took:.1f} s {job.error or ''}")
    if not finished.done:
        return
    keep(finished, f"fusion-{variant}-{shape}")
    result, figures = finished.result, finished.figures
    print("device limits:", result.device_limits)
    print("limits note:", result.limits_note or "-")
    for m in result.modes:
        print(
            f"  {m.mode:<38} ran={m.ran} kernels/call={m.kernel_count} "
            f"median={figures['steady_state_ms'].get(m.mode)} ms transfers={m.transfers_per_element} "
            f"tolerance={m.tolerance_passed} triton={m.triton_kernels} note={m.triton_note!r}"
        )
    print(fk.resources_frame(result)[SHOWN].to_string())
    print("key figures:", {k: v for k, v in figures.items() if k.startswith("kernel_")})
    for note in registry.build_report(finished.run, finished.result).notes:
        if note.startswith(("Long chain", "Triton configs", "The profiler's", "torch ")):
            print("  note:", note)


def main() -> None:
    with Bench(device) as bench:
        for variant in ("pointwise", "long-chain"):
            for shape in SHAPES:
                one(bench, shape, variant)


if __name__ == "__main__":
    main()
