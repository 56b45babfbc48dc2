"""Issue 14's device evidence: CSAN verdicts per ordering beside the lab's trials; a raw trace of
the side-stream matmul with the profiler's CUDA sync events on (a fixture for the parser).

Run: python3 scripts/race_evidence.py [OUT_DIR]"""

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pandas as pd

from runtime_lab.registry import result_from_record
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec
from runtime_lab.streams import csan_frames, sync_frames
from runtime_lab.streams import frames as fs

pd.set_option("display.width", 250, "display.max_columns", 20, "display.max_colwidth", 90)
out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp())
out.mkdir(parents=True, exist_ok=True)


def sync_trace() -> None:
    """The seed's chain under torch.profiler with enable_cuda_sync_events, saved raw."""
    import torch
    from torch.profiler import ProfilerActivity, profile

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


jobs = JobManager(data_dir=tempfile.mkdtemp(prefix="race-evidence-"), timeout_s=900)
try:
    options = {"sanitizer": True, "trials": 20, "overlap": True}
    spec = build_spec("streams", "1024x1024", device="cuda", options=options)
    start = time.perf_counter()
    job = jobs.wait(jobs.submit(spec), 900)
    print(
        f"streams 1024² cuda sanitizer: {job.state} in {time.perf_counter() - start:.1f} s {job.error or ''}"
    )
    run = job.as_run()
    (out / "streams-csan.json").write_text(json.dumps(run, default=str))
    result = result_from_record("streams", run["result"])
    print(
        fs.variants_frame(result)[
            ["variant", "guaranteed", "mismatches", "trials", "reused_block"]
        ].to_string()
    )
    print(csan_frames.csan_frame(result).to_string())
    print("note:", result.csan_note)
    print("sync events:", result.sync_events)
    print(sync_frames.sync_frame(result).to_string())
    print(sync_frames.sync_notes(result))
    if result.trace_file:
        import shutil

        shutil.copy(result.trace_file, out / "streams-lab-sync-trace.json")
finally:
    jobs.close()
sync_trace()
