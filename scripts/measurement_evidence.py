"""Measurement evidence on a GPU (docs/gpu-evidence.md): order independence, clocks, ceiling.

Run on a CUDA machine: python3 scripts/measurement_evidence.py [--out DIR] [--quick]
Every lab figure comes through the real queue and worker (JobManager), as a page gets it.
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runtime_lab import registry
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

LOOP_MODES = ("eager", "cuda-graph", "cuda-graph-inductor")
SMALL = "eager,inductor,cuda-graph,cuda-graph-inductor"

# A clean process: nothing but the workload, timed as the lab's loop figure is (200 calls
# back to back between one event pair, no flush), median of 20 such loops.
CLEAN = r"""
import json, torch, torch.nn.functional as F
def pointwise(x, y): return F.silu(x + y) * (x - y)
x = torch.randn(256, 256, device="cuda"); y = torch.randn_like(x)
def graph_of(fn):
    s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3): fn(x, y)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g): fn(x, y)
    return g.replay
compiled = torch.compile(pointwise)
fns = {"eager": lambda: pointwise(x, y), "inductor": lambda: compiled(x, y)}
fns["cuda-graph"] = graph_of(pointwise)
fns["cuda-graph-inductor"] = graph_of(compiled)
out = {}
for name, fn in fns.items():
    for _ in range(50): fn()
    loops = []
    for _ in range(20):
        torch.cuda.synchronize(); a = torch.cuda.Event(enable_timing=True); b = torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(200): fn()
        b.record(); torch.cuda.synchronize(); loops.append(a.elapsed_time(b) * 1e3 / 200)
    out[name] = sorted(loops)[len(loops) // 2]
print(json.dumps(out))
"""


def clean_reference() -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CLEAN], capture_output=True, text=True, timeout=300
    )
    if done.returncode:
        raise SystemExit(f"clean reference failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def submit(jobs: JobManager, experiment: str, shape: str, dtype="float32", **options) -> dict:
    spec = build_spec(experiment, shape, dtype=dtype, device="cuda", options=options)
    start = time.perf_counter()
    job = jobs.wait(jobs.submit(spec), 600)
    run = job.as_run()
    if job.state != "done":
        raise SystemExit(f"{spec.label}: {job.state}: {job.error}")
    run["wall_s"] = time.perf_counter() - start
    return run


def fusion(jobs, shape, dtype="float32", modes=SMALL):
    return submit(jobs, "fusion", shape, dtype, modes=modes, compile_latency=False)


def probe_line(run: dict) -> str:
    probe = run.get("process_probe") or {}
    worker = run.get("worker") or {}
    return f"probe {json.dumps(probe, default=str)[:300]} worker {json.dumps(worker)[:200]}"


def order_independence(jobs, out: dict, clean: dict) -> None:
    cases = {}
    cases["first"] = fusion(jobs, "256x256")
    submit(jobs, "allocator", "1024x1024", shapes="1024x1024,4096x4096", compare_side=4096)
    cases["after allocator"] = fusion(jobs, "256x256")
    submit(jobs, "streams", "1024x1024", trials=5)
    cases["after streams"] = fusion(jobs, "256x256")
    rows = []
    for case, run in cases.items():
        loops = registry.summary(run)["loop_us_per_call"]
        for mode in (*LOOP_MODES, "inductor"):
            lab, ref = loops.get(mode), clean.get(mode)
            ratio = lab / ref if lab and ref else None
            rows.append(
                {"case": case, "mode": mode, "lab_us": lab, "clean_us": ref, "ratio": ratio}
            )
            mark = (
                "" if mode == "inductor" else ("ok" if ratio and abs(ratio - 1) <= 0.10 else "OFF")
            )
            print(
                f"  {case:<16} {mode:<20} lab {lab:8.2f} µs  clean {ref:8.2f} µs  ×{ratio:5.2f} {mark}"
            )
        print("   ", probe_line(run))
    out["order_independence"] = {"clean": clean, "rows": rows}


def clocks_and_ceiling(jobs, out: dict, sides) -> None:
    rows = []
    for dtype in ("float32", "bfloat16"):
        for side in sides:
            run = fusion(jobs, f"{side}x{side}", dtype, modes="eager,inductor")
            result = run["result"]
            print(
                f"== {side}² {dtype} ({run['wall_s']:.0f} s) ceiling {result.get('ceiling_gbps')} GB/s "
                f"({result.get('ceiling_source')}), copy {result.get('copy_ceiling_gbps'):.0f}, "
                f"add {result.get('add_gbps')}, theoretical {result.get('theoretical_gbps')}"
            )
            figures = {f["mode"]: f for f in _mode_figures(run)}
            for mode in result["modes"]:
                fig = figures.get(mode["mode"], {})
                clocks = {c["clock"]: c["median_ms"] for c in mode.get("clocks") or ()}
                lab = clocks.get("lab")
                spread = {k: v / lab for k, v in clocks.items()} if lab else {}
                pct = fig.get("ceiling_pct")
                print(
                    f"  {mode['mode']:<10} {fig.get('achieved_gbps') or 0:8.0f} GB/s = {pct or 0:6.1f} % of ceiling; "
                    f"clocks ms {json.dumps({k: round(v, 5) for k, v in clocks.items()})} "
                    f"ratios {json.dumps({k: round(v, 4) for k, v in spread.items()})}"
                )
                rows.append(
                    {
                        "side": side,
                        "dtype": dtype,
                        "mode": mode["mode"],
                        "ceiling_pct": pct,
                        "clocks_ms": clocks,
                        "ceiling_gbps": result.get("ceiling_gbps"),
                    }
                )
            print("   ", probe_line(run))
    worst = max((r["ceiling_pct"] or 0 for r in rows), default=None)
    print(f"highest % of ceiling over every size and dtype: {worst}")
    out["clocks_and_ceiling"] = rows


def _mode_figures(run: dict) -> list[dict]:
    from runtime_lab.fusion.figures import mode_figures

    return mode_figures(registry.result_from_record("fusion", run["result"]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=None, help="write the figures as JSON here")
    parser.add_argument("--quick", action="store_true", help="8192² and 16384² only")
    parser.add_argument("--order-only", action="store_true", help="only the 256² order check")
    parser.add_argument("--sides", default="", help="ceiling check at these square sides only")
    args = parser.parse_args()
    started = time.perf_counter()
    if args.sides:  # the ceiling check alone, e.g. --sides 32768
        jobs = JobManager(data_dir=tempfile.mkdtemp(prefix="evidence-"), timeout_s=600)
        try:
            clocks_and_ceiling(jobs, {}, [int(s) for s in args.sides.split(",")])
        finally:
            jobs.close()
        return
    # before the lab starts: its workers' start-up would share the GPU with the reference
    # three clean processes: a launch-bound loop moves between processes of one script, so the
    # lab is compared with their median and the clean spread is printed beside it
    cleans = [clean_reference() for _ in range(3)]
    clean = {k: sorted(c[k] for c in cleans)[1] for k in cleans[0]}
    for c in cleans:
        print("clean process, µs per call (median of 20 loops of 200):", json.dumps(c))
    jobs = JobManager(data_dir=tempfile.mkdtemp(prefix="evidence-"), timeout_s=600)
    out: dict = {"clean_processes": cleans}
    try:
        order_independence(jobs, out, clean)
        if not args.order_only:
            sides = (8192, 16384) if args.quick else (8192, 16384, 32768)
            clocks_and_ceiling(jobs, out, sides)
    finally:
        jobs.close()
        print(f"total {time.perf_counter() - started:.0f} s")
        if args.out:
            Path(args.out).write_text(json.dumps(out, indent=1, default=str))


if __name__ == "__main__":
    main()
