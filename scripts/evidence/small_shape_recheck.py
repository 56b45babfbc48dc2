"""Re-measure fusion 256² eager/inductor with compile_latency on and off, a fresh worker each
(session 5 saw 0.042 ms for inductor with it off vs 0.0042 ms with default options).

Run: python -m scripts.evidence.small_shape_recheck [cuda|cpu]"""

import sys
import time

from benchmarks.harness import Bench
from runtime_lab.results import stats
from runtime_lab.spec import build_spec

device = sys.argv[1] if len(sys.argv) > 1 else "cuda"
CASES = {
    "latency off, trace off": {"compile_latency": False, "compile_trace": False},
    "defaults": {},
    "latency on, trace off": {"compile_latency": True, "compile_trace": False},
    "latency off, trace off (again)": {"compile_latency": False, "compile_trace": False},
}


def main() -> None:
    for name, extra in CASES.items():
        with Bench(device, spare=False) as bench:  # a fresh lab, and worker, per case
            options = {"modes": ["eager", "inductor"], **extra}
            start = time.perf_counter()
            finished = bench.run(build_spec("fusion", "256x256", device=device, options=options))
            job = finished.job
            print(
                f"\n== {name}: {job.state} in {time.perf_counter() - start:.1f} s {job.error or ''}"
            )
            for m in finished.result.modes if finished.done else ():
                if m.timing is None:
                    continue
                primary, host = stats(m.timing.primary_ms), stats(m.timing.host_ms)
                device_ms = stats(m.timing.device_ms)
                print(
                    f"  {m.mode:<10} steady {primary.median:.5f} ms iqr {primary.iqr:.5f} "
                    f"device {device_ms.median if device_ms else None} host {host.median:.5f} "
                    f"loop {m.loop_us_per_call} µs/call"
                )


if __name__ == "__main__":
    main()
