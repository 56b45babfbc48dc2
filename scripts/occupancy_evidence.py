"""Issue 19's device evidence: kernel resources and theoretical occupancy per kernel of eager,
inductor and max-autotune-no-cudagraphs at 256² and 16384², for both fusion variants (pointwise
and the long-chain what-if), through the lab's own job queue and worker.

Run: python3 scripts/occupancy_evidence.py [cuda|cpu] [OUT_DIR]
OUT_DIR (optional) keeps each run's JSON and its Chrome traces: recorded fixtures come from there."""

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pandas as pd

from runtime_lab import registry
from runtime_lab.fusion import frames_kernels as fk
from runtime_lab.fusion.figures import mode_figures
from runtime_lab.registry import result_from_record
from runtime_lab.runner.jobs import JobManager
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


def keep(run: dict, name: str) -> None:
    if out is None:
        return
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(run, default=str))
    for mode in run["result"]["modes"]:
        trace = mode.get("trace_file")
        if trace and Path(trace).is_file():
            shutil.copy(trace, out / f"{name}-{mode['mode']}-trace.json")


def one(shape: str, variant: str) -> None:
    options = {"modes": MODES, "variant": variant, "compile_latency": False, "compile_trace": False}
    spec = build_spec("fusion", shape, device=device, options=options)
    start = time.perf_counter()
    job = jobs.wait(jobs.submit(spec), 900)
    took = time.perf_counter() - start
    print(f"\n== fusion {variant} {shape} {device}: {job.state} in {took:.1f} s {job.error or ''}")
    if job.state != "done":
        return
    run = job.as_run()
    keep(run, f"fusion-{variant}-{shape}")
    result = result_from_record("fusion", run["result"])
    print("device limits:", result.device_limits)
    print("limits note:", result.limits_note or "-")
    for m in result.modes:
        fig = next(f for f in mode_figures(result) if f["mode"] == m.mode)
        print(
            f"  {m.mode:<38} ran={m.ran} kernels/call={m.kernel_count} "
            f"median={fig.get('steady_state_ms')} ms transfers={m.transfers_per_element} "
            f"tolerance={m.tolerance_passed} triton={m.triton_kernels} note={m.triton_note!r}"
        )
    frame = fk.resources_frame(result)
    print(frame[SHOWN].to_string())
    print(
        "key figures:", {k: v for k, v in registry.summary(run).items() if k.startswith("kernel_")}
    )
    for note in registry.build_report(run).notes:
        if note.startswith(("Long chain", "Triton configs", "The profiler's", "torch ")):
            print("  note:", note)


jobs = JobManager(data_dir=tempfile.mkdtemp(prefix="occupancy-evidence-"), timeout_s=900)
try:
    for variant in ("pointwise", "long-chain"):
        for shape in SHAPES:
            one(shape, variant)
finally:
    jobs.close()
