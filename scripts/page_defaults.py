"""Each page's default Run as a page user meets it: one server-side JobManager with its spare,
a pause between clicks, each job's run time (worker start to end) and wait from submit.

Run: python3 scripts/page_defaults.py [cuda|cpu] [pause_s]  (docs/gpu-evidence.md, issue 18)"""

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runtime_lab.options import form_defaults
from runtime_lab.registry import EXPERIMENTS
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import spec_from_values

device = sys.argv[1] if len(sys.argv) > 1 else "cuda"
pause_s = float(sys.argv[2]) if len(sys.argv) > 2 else 15.0
jobs = JobManager(data_dir=tempfile.mkdtemp(prefix="page-defaults-"), timeout_s=600)
deadline = time.monotonic() + 120
while not jobs.env and time.monotonic() < deadline:
    time.sleep(0.2)
print("worker ready; gpus:", [g["name"] for g in jobs.env.get("gpus") or []], flush=True)
try:
    for name in ("fusion", "streams", "recompiles", "allocator"):
        values = form_defaults(EXPERIMENTS[name], gpu=device == "cuda")
        spec = spec_from_values(name, {**values, "device": device})
        time.sleep(pause_s)  # a user reading the last report: the spare has time to start
        submitted = time.perf_counter()
        job = jobs.wait(jobs.submit(spec), 600)
        run = job.as_run()
        took = time.perf_counter() - submitted
        worker = run.get("worker") or {}
        print(
            f"{name:<10} {job.state:<6} wait+run {took:5.1f} s, run {job.finished_at - job.started_at:5.1f} s, "
            f"spare {worker.get('started_as_spare')}, fresh {worker.get('fresh_after_disturbed')}",
            flush=True,
        )
finally:
    jobs.close()
