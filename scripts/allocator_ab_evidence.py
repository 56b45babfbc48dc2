"""Issue 14's allocator evidence: default vs expandable segments (a fresh process each) on the
dynamic-batch shapes, and compile context in the compiled scenario's snapshot; issue 19's
memory outside the allocator (a fresh process, step by step).

Run: python3 scripts/allocator_ab_evidence.py [OUT_DIR]"""

import json
import pickle
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pandas as pd

from runtime_lab.allocator import ab_frames
from runtime_lab.registry import result_from_record
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

pd.set_option("display.width", 250, "display.max_columns", 20, "display.max_colwidth", 80)
out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp())
out.mkdir(parents=True, exist_ok=True)
jobs = JobManager(data_dir=tempfile.mkdtemp(prefix="alloc-ab-"), timeout_s=900)
try:
    for shapes in (
        "preset",
        "1024x1024,4096x4096,2048x2048,8192x8192,1024x1024,4096x4096,6144x6144,3072x3072",
    ):
        options = {
            "alloc_ab": True,
            "scenarios": "sequence,compiled",
            "outside": shapes == "preset",
        }
        if shapes != "preset":
            options["shapes"] = shapes
        spec = build_spec("allocator", "1024x1024", device="cuda", options=options)
        start = time.perf_counter()
        job = jobs.wait(jobs.submit(spec), 900)
        print(
            f"allocator A/B ({shapes}): {job.state} in {time.perf_counter() - start:.1f} s {job.error or ''}"
        )
        run = job.as_run()
        (out / f"allocator-ab-{len(shapes)}.json").write_text(json.dumps(run, default=str))
        result = result_from_record("allocator", run["result"])
        print(ab_frames.config_frame(result).to_string())
        for r in result.alloc_configs:
            print(
                f"  {r.config}: end reserved {r.end_reserved_bytes}, end segments {r.end_segments}, error {r.error}"
            )
        print(" ", ab_frames.verdict(result))
        print(ab_frames.context_frame(result).to_string())
        print(" ", ab_frames.context_notes(result))
        if result.outside is not None:
            from runtime_lab.allocator import outside_frames

            o = result.outside
            print(f"  outside: before {o.device_used_before_bytes}, nccl {o.nccl}, error {o.error}")
            for st in o.steps:
                print(f"    {st}")
            print(outside_frames.outside_frame(result).drop(columns="where").to_string())
        for s in result.snapshots:
            if s.scenario == "compiled":
                snap = pickle.loads(Path(s.file).read_bytes())
                entries = [e for t in snap.get("device_traces", []) for e in t]
                keys = Counter(k for e in entries for k in e)
                print("  compiled snapshot entry keys:", dict(keys))
                sample = [e for e in entries if e.get("action") == "alloc"][:2]
                print("  sample:", [{k: v for k, v in e.items() if k != "frames"} for e in sample])
finally:
    jobs.close()
