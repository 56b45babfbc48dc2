"""Issue 14's allocator evidence: default vs expandable segments (a fresh process each) on the
dynamic-batch shapes, and compile context in the compiled scenario's snapshot; issue 19's
memory outside the allocator (a fresh process, step by step).

Run: python -m scripts.evidence.allocator_ab_evidence [OUT_DIR]"""

import json
import pickle
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import pandas as pd

from benchmarks.harness import Bench
from runtime_lab.allocator.report import ab as ab_frames
from runtime_lab.allocator.report import outside as outside_frames
from runtime_lab.spec import build_spec

pd.set_option("display.width", 250, "display.max_columns", 20, "display.max_colwidth", 80)
out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp())
out.mkdir(parents=True, exist_ok=True)
SEQUENCES = (
    "preset",
    "1024x1024,4096x4096,2048x2048,8192x8192,1024x1024,4096x4096,6144x6144,3072x3072",
)


def show(result) -> None:
    print(ab_frames.config_frame(result).to_string())
    for r in result.alloc_configs:
        print(
            f"  {r.config}: end reserved {r.end_reserved_bytes}, end segments {r.end_segments}, "
            f"error {r.error}"
        )
    print(" ", ab_frames.verdict(result))
    print(ab_frames.context_frame(result).to_string())
    print(" ", ab_frames.context_notes(result))
    if result.outside is not None:
        o = result.outside
        print(f"  outside: before {o.device_used_before_bytes}, nccl {o.nccl}, error {o.error}")
        for step in o.steps:
            print(f"    {step}")
        print(outside_frames.outside_frame(result).drop(columns="where").to_string())
    for s in result.snapshots:
        if s.scenario == "compiled":  # read while the lab's data dir (and the pickle) is there
            snap = pickle.loads(Path(s.file).read_bytes())
            entries = [e for t in snap.get("device_traces", []) for e in t]
            print("  compiled snapshot entry keys:", dict(Counter(k for e in entries for k in e)))
            sample = [e for e in entries if e.get("action") == "alloc"][:2]
            print("  sample:", [{k: v for k, v in e.items() if k != "frames"} for e in sample])


def main() -> None:
    with Bench("cuda") as bench:
        for shapes in SEQUENCES:
            options = {
                "alloc_ab": True,
                "scenarios": "sequence,compiled",
                "outside": shapes == "preset",
            }
            if shapes != "preset":
                options["shapes"] = shapes
            start = time.perf_counter()
            finished = bench.run(
                build_spec("allocator", "1024x1024", device="cuda", options=options)
            )
            job = finished.job
            took = time.perf_counter() - start
            print(f"allocator A/B ({shapes}): {job.state} in {took:.1f} s {job.error or ''}")
            (out / f"allocator-ab-{len(shapes)}.json").write_text(
                json.dumps(finished.document(), default=str)
            )
            if finished.result is not None:
                show(finished.result)


if __name__ == "__main__":
    main()
