"""Record real CUDA profiler traces and a memory snapshot as small test fixtures (run on a GPU).

Usage: python -m scripts.evidence.capture_gpu_fixtures OUT_DIR
Writes streams-*.json (Chrome traces tagged with record_function("lab:stream:<lane>")),
alloc-snapshot.pickle (torch.cuda.memory._snapshot) and probe figures on stdout. The tests keep
the snapshot as JSON (tests/fixtures/h200/alloc-snapshot.json.gz, read by tests/helpers/h200data.py),
not as a tracked pickle.
"""

from __future__ import annotations

import json
import pickle
import sys
import time
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile, record_function

ACTIVITIES = [ProfilerActivity.CPU, ProfilerActivity.CUDA]


def cycles_per_ms() -> float:
    """torch.cuda._sleep spins for a number of clock cycles: calibrate it in ms."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda._sleep(1000)
    start.record()
    torch.cuda._sleep(10_000_000)
    end.record()
    torch.cuda.synchronize()
    return 10_000_000 / start.elapsed_time(end)


def correct_and_broken(out: Path, cpm: float) -> None:
    n = 1024
    default, side = torch.cuda.current_stream(), torch.cuda.Stream()
    x, y = torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")
    _ = x @ y
    torch.cuda.synchronize()
    for name, wait in (("correct", True), ("missing-producer-wait", False)):
        with profile(activities=ACTIVITIES) as prof:
            inputs_ready, work_done = torch.cuda.Event(), torch.cuda.Event()
            with record_function("lab:stream:default"):
                torch.cuda._sleep(int(0.5 * cpm))  # the slow producer
                x.normal_()
                y.normal_()
                inputs_ready.record(default)
            with torch.cuda.stream(side), record_function("lab:stream:side"):
                if wait:
                    side.wait_event(inputs_ready)
                z = x @ y
                work_done.record(side)
            with record_function("lab:stream:default"):
                default.wait_event(work_done)
                total = z.sum()
            torch.cuda.synchronize()
        prof.export_chrome_trace(str(out / f"streams-{name}.json"))
        print(name, "sum", float(total), "handles", default.cuda_stream, side.cuda_stream)


def overlap(out: Path) -> None:
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    a = [torch.randn(256, 256, device="cuda") for _ in range(2)]
    torch.cuda.synchronize()
    with profile(activities=ACTIVITIES) as prof:
        for lane, stream, t in (("a", s1, a[0]), ("b", s2, a[1])):
            with torch.cuda.stream(stream), record_function(f"lab:stream:{lane}"):
                for _ in range(5):
                    t = torch.sin(t)
        torch.cuda.synchronize()
    prof.export_chrome_trace(str(out / "streams-overlap.json"))


def race_probe(cpm: float, trials: int = 20) -> None:
    """Does a missing wait give wrong answers? Count mismatches in each broken ordering."""
    n = 2048
    side = torch.cuda.Stream()
    default = torch.cuda.current_stream()
    x, y = torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")
    bad = {"producer": 0, "consumer": 0, "early-free": 0, "early-free+record_stream": 0}
    for _ in range(trials):
        torch.cuda._sleep(int(1.0 * cpm))
        x.normal_()
        y.normal_()
        with torch.cuda.stream(side):
            z = x @ y
        torch.cuda.synchronize()
        bad["producer"] += int(not torch.equal(z, x @ y))
        side.wait_stream(default)
        with torch.cuda.stream(side):
            torch.cuda._sleep(int(1.0 * cpm))
            z2 = x @ y
        seen = z2.clone()  # default stream: no wait_event(work_done)
        torch.cuda.synchronize()
        bad["consumer"] += int(not torch.equal(seen, x @ y))
        for record in (False, True):
            tmp = torch.randn(n, n, device="cuda")
            keep = tmp.clone()
            side.wait_stream(default)
            with torch.cuda.stream(side):
                torch.cuda._sleep(int(1.0 * cpm))
                z3 = tmp @ y
            if record:
                tmp.record_stream(side)
            ptr = tmp.data_ptr()
            del tmp
            new = torch.zeros(n, n, device="cuda")  # may reuse tmp's block at once
            torch.cuda.synchronize()
            key = "early-free+record_stream" if record else "early-free"
            bad[key] += int(not torch.equal(z3, keep @ y))
            print(key, "reused", new.data_ptr() == ptr, end="; ")
        print()
    print("race probe mismatches of", trials, json.dumps(bad))


def snapshot(out: Path) -> None:
    torch.cuda.empty_cache()
    torch.cuda.memory._record_memory_history(max_entries=400, stacks="python")
    stats = []
    for n in (1024, 4096, 2048, 1024):
        x, y = torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")
        z = torch.nn.functional.silu(x + y) * (x - y)
        del x, y, z
        s = torch.cuda.memory_stats()
        stats.append((n, s["allocated_bytes.all.current"], s["reserved_bytes.all.current"]))
    torch.cuda.empty_cache()
    s = torch.cuda.memory_stats()
    stats.append(("empty_cache", s["allocated_bytes.all.current"], s["reserved_bytes.all.current"]))
    torch.cuda.memory._dump_snapshot(str(out / "alloc-snapshot.pickle"))
    torch.cuda.memory._record_memory_history(enabled=None)
    snap = pickle.loads((out / "alloc-snapshot.pickle").read_bytes())
    print("snapshot keys", sorted(snap), "trace entries", [len(t) for t in snap["device_traces"]])
    print(
        "first entries",
        [{k: v for k, v in e.items() if k != "frames"} for e in snap["device_traces"][0][:4]],
    )
    print("alloc per step", stats)


def peaks(n: int = 8192) -> None:
    x, y = torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")
    fn = lambda a, b: torch.nn.functional.silu(a + b) * (a - b)  # noqa: E731
    compiled = torch.compile(fn)
    compiled(x, y)
    for name, f in (("eager", fn), ("compiled", compiled)):
        torch.cuda.synchronize()
        base = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        r = f(x, y)
        torch.cuda.synchronize()
        print(name, "peak over inputs MB", (torch.cuda.max_memory_allocated() - base) / 2**20)
        del r


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    cpm = cycles_per_ms()
    print("torch", torch.__version__, torch.cuda.get_device_name(), "sleep cycles/ms", round(cpm))
    t0 = time.perf_counter()
    correct_and_broken(out, cpm)
    overlap(out)
    race_probe(cpm)
    snapshot(out)
    peaks()
    print("capture took", round(time.perf_counter() - t0, 1), "s")


if __name__ == "__main__":
    main()
