"""Fusion benchmark for docs/gpu-evidence.md: the issue's speed checks, run in one process.

Run on a GPU: python scripts/fusion_bench.py  (prints one JSON line per check and a summary)
"""

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch

from runtime_lab.fusion import run as fusion
from runtime_lab.fusion.figures import key_figures, mode_figures
from runtime_lab.fusion.info import FUSION_MODES
from runtime_lab.lab.base import Context
from runtime_lab.spec import build_spec

ALL_MODES = ",".join(FUSION_MODES)


def run(shape, dtype, **options):
    spec = build_spec(
        "fusion", shape, dtype=dtype, device="cuda", warmup=10, repeat=100, options=options
    )
    start = time.perf_counter()
    result = fusion.run(spec, Context(device=torch.device("cuda:0"), progress=lambda *a: None))
    return spec, result, time.perf_counter() - start


def show(tag, result, wall_s):
    print(f"== {tag} ({wall_s:.1f} s)")
    for row in mode_figures(result):
        m = next(m for m in result.modes if m.mode == row["mode"])
        if not row["ran"]:
            print(f"  {row['mode']:<38} not run: {row['error']}")
            continue
        print(
            f"  {row['mode']:<38} kernels/call={m.kernel_count:g} diff={m.max_abs_diff:.3e} "
            f"median={row['steady_state_ms'] * 1e3:9.2f} us iqr={row['iqr_ms'] * 1e3:7.2f} us "
            f"host={row['host_ms'] * 1e3:7.2f} us {row['verdict']:<12} x{row['speedup_vs_eager'] or 0:5.2f} "
            f"{row['achieved_gbps']:8.1f} GB/s ({(row['ceiling_fraction'] or 0) * 100:5.1f} % of ceiling) "
            f"loop={row['loop_us_per_call']:8.2f} us/call"
        )
        for c in m.compile:
            print(
                f"      compile {c.scenario:<13} {c.first_call_s:8.3f} s  dynamo={c.dynamo_s} inductor={c.inductor_s} "
                f"triton={c.triton_s} fx hit/miss={c.fx_cache_hits}/{c.fx_cache_misses} compiles={c.compiles} {c.detail}"
            )
    figures = key_figures(result)
    figures.pop("eager_kernel_names")
    print("  key figures:", json.dumps(figures, default=str))


def do_bench_check(spec, result):
    """The lab's median against triton.testing.do_bench (L2 flushed, median) in this process."""
    from triton.testing import do_bench

    x = torch.randn(spec.shape, device="cuda", dtype=getattr(torch, spec.dtype))
    y = torch.randn_like(x)
    for mode in ("eager", "inductor"):
        fn = fusion.build(mode, spec, x, y)
        fn()
        bench_ms = do_bench(fn, warmup=25, rep=200, return_mode="median")
        lab_ms = next(r for r in mode_figures(result) if r["mode"] == mode).get("steady_state_ms")
        if lab_ms is None:
            print(f"  do_bench {mode}: the lab did not time this mode")
            continue
        print(
            f"  do_bench {mode:<9} {bench_ms * 1e3:9.2f} us  lab {lab_ms * 1e3:9.2f} us  diff {(lab_ms / bench_ms - 1) * 100:+.2f} %"
        )


LAUNCH_MODES = "eager,inductor,inductor-reduce-overhead,cuda-graph,cuda-graph-inductor"


def main():
    print(
        f"torch {torch.__version__} cuda {torch.version.cuda} gpu {torch.cuda.get_device_name(0)}"
    )
    parts = sys.argv[1:] or ["512", "16384", "256", "sweep"]
    if "512" in parts:
        spec, result, wall = run("512x512", "float32", modes=ALL_MODES, fresh_process=True)
        show("512x512 float32, all modes, cold/warm-cache/warm-process/fresh-process", result, wall)
    for dtype in ("float32", "bfloat16") if "16384" in parts else ():
        modes = "eager,inductor,cuda-graph"
        spec, result, wall = run("16384x16384", dtype, modes=modes, compile_latency=False)
        show(f"16384x16384 {dtype}", result, wall)
        do_bench_check(spec, result)
    if "256" in parts:
        spec, result, wall = run("256x256", "float32", modes=LAUNCH_MODES, compile_latency=False)
        show("256x256 float32 (launch-bound)", result, wall)
    if "sweep" in parts:
        sizes = "256,1024,4096,8192,16384"
        _, result, wall = run(
            "1024x1024", "float32", modes=LAUNCH_MODES, compile_latency=False, sweep=sizes
        )
        print(f"== sweep {sizes} ({wall:.1f} s)")
        for p in result.sweep:
            gbps = p.bytes_moved / (p.median_ms / 1e3) / 1e9
            print(
                f"  {p.mode:<26} {p.side:>6}²  median={p.median_ms * 1e3:9.2f} us  loop={p.loop_us_per_call:9.2f} us/call  {gbps:8.1f} GB/s"
            )


if __name__ == "__main__":
    with torch.inference_mode():
        main()
