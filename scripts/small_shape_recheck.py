"""Re-measure fusion 256² eager/inductor with compile_latency on and off, a fresh worker each
(session 5 saw 0.042 ms for inductor with it off vs 0.0042 ms with default options)."""

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runtime_lab.fusion.figures import mode_figures
from runtime_lab.registry import result_from_record
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

device = sys.argv[1] if len(sys.argv) > 1 else "cuda"
CASES = {
    "latency off, trace off": {"compile_latency": False, "compile_trace": False},
    "defaults": {},
    "latency on, trace off": {"compile_latency": True, "compile_trace": False},
    "latency off, trace off (again)": {"compile_latency": False, "compile_trace": False},
}
for name, extra in CASES.items():
    jobs = JobManager(data_dir=tempfile.mkdtemp(prefix="recheck-"), timeout_s=900, spare=False)
    try:
        spec = build_spec(
            "fusion", "256x256", device=device, options={"modes": ["eager", "inductor"], **extra}
        )
        start = time.perf_counter()
        job = jobs.wait(jobs.submit(spec), 900)
        print(f"\n== {name}: {job.state} in {time.perf_counter() - start:.1f} s {job.error or ''}")
        if job.state != "done":
            continue
        result = result_from_record("fusion", job.as_run()["result"])
        for fig in mode_figures(result):
            keys = ("steady_state_ms", "iqr_ms", "device_ms", "host_ms", "loop_us_per_call")
            print(f"  {fig['mode']:<10}", {k: fig.get(k) for k in keys})
    finally:
        jobs.close()
