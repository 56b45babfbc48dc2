"""Issue 14's device evidence: CSAN verdicts per ordering beside the lab's trials; a raw trace of
the side-stream matmul with the profiler's CUDA sync events on (a fixture for the parser).

Run: python -m scripts.evidence.race_evidence [OUT_DIR]"""

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from benchmarks.harness import Bench
from runtime_lab.spec import build_spec
from runtime_lab.streams.report import csan as csan_frames
from runtime_lab.streams.report import frames as fs
from runtime_lab.streams.report import sync as sync_frames
from runtime_lab.streams.report.figures import figures

pd.set_option("display.width", 250, "display.max_columns", 20, "display.max_colwidth", 90)
out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp())
out.mkdir(parents=True, exist_ok=True)


def sync_trace() -> None:
    """The seed's chain under torch.profiler with enable_cuda_sync_events, saved raw."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    # torch's only switch for the sync events is this experimental config
    config = torch._C._profiler._ExperimentalConfig(enable_cuda_sync_events=True)
    x = torch.randn(1024, 1024, device="cuda")
    y = torch.randn(1024, 1024, device="cuda")
    side = torch.cuda.Stream()
    for _ in range(2):
        with profile(
            activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], experimental_config=config
        ) as prof:
            default = torch.cuda.current_stream()
            ready, done = torch.cuda.Event(), torch.cuda.Event()
            ready.record(default)
            with torch.cuda.stream(side):
                side.wait_event(ready)
                z = x @ y
                done.record(side)
            default.wait_event(done)
            w = z * 2
            done.synchronize()
            torch.cuda.synchronize()
    prof.export_chrome_trace(str(out / "sync-events-trace.json"))
    events = json.loads((out / "sync-events-trace.json").read_text())["traceEvents"]
    sync = [e for e in events if e.get("cat") == "cuda_sync"]
    print(f"sync trace: {len(events)} events, {len(sync)} cuda_sync")
    for e in sync:
        print("  ", e.get("name"), e.get("ts"), e.get("dur"), json.dumps(e.get("args")))
    print("side stream", side.cuda_stream, "default", torch.cuda.current_stream().cuda_stream)
    del w


def lab_run() -> None:
    options = {"sanitizer": True, "trials": 20, "overlap": True}
    with Bench("cuda") as bench:
        start = time.perf_counter()
        finished = bench.run(build_spec("streams", "1024x1024", device="cuda", options=options))
        job = finished.job
        took = time.perf_counter() - start
        print(f"streams 1024² cuda sanitizer: {job.state} in {took:.1f} s {job.error or ''}")
        (out / "streams-csan.json").write_text(json.dumps(finished.document(), default=str))
        result = finished.result
        if result is None:
            return
        shown = ["variant", "guaranteed", "mismatches", "trials", "reused_block"]
        print(fs.variants_frame(result, figures(result))[shown].to_string())
        print(csan_frames.csan_frame(result).to_string())
        print("note:", result.csan_note)
        print("sync events:", result.sync_events)
        print(sync_frames.sync_frame(result).to_string())
        print(sync_frames.sync_notes(result))
        if result.trace_file:  # under the lab's temporary data dir: copied before it goes
            shutil.copy(result.trace_file, out / "streams-lab-sync-trace.json")


if __name__ == "__main__":
    lab_run()
    sync_trace()
