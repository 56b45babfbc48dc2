"""Warm re-run latency through the real queue and worker: submit → result → report built.

Run: python scripts/rerun_latency.py [--device cuda] [--shape 4096x4096]
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runtime_lab import registry
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="auto")
    parser.add_argument("--shape", default="4096x4096")
    args = parser.parse_args()
    jobs = JobManager(data_dir=tempfile.mkdtemp(prefix="rerun-"), timeout_s=600)
    try:
        for attempt in ("first (compiles)", "warm re-run 1", "warm re-run 2"):
            spec = build_spec(
                "fusion", args.shape, device=args.device, options={"compile_latency": False}
            )
            start = time.perf_counter()
            job = jobs.wait(jobs.submit(spec), 600)
            done = time.perf_counter()
            registry.build_report(job.as_run())
            built = time.perf_counter()
            print(
                f"{attempt:<18} state={job.state} submit→result {done - start:6.3f} s  report {built - done:6.3f} s  total {built - start:6.3f} s"
            )
    finally:
        jobs.close()


if __name__ == "__main__":
    main()
