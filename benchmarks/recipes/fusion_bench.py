"""Fusion's speed checks on a GPU: every mode, 16384² against do_bench, launch-bound 256², a sweep."""

from __future__ import annotations

from typing import Any

from benchmarks import clean
from benchmarks.harness import Bench, Finished
from benchmarks.recipe import Recipe, Settings, flag, sides, some_of
from runtime_lab.fusion.info import FUSION_MODES
from runtime_lab.results import stats
from runtime_lab.spec import build_spec

LAUNCH_MODES = "eager,inductor,inductor-reduce-overhead,cuda-graph,cuda-graph-inductor"
LARGE_MODES = "eager,inductor,cuda-graph"


def fusion(bench: Bench, shape: str, dtype: str = "float32", **options: Any) -> Finished:
    spec = build_spec(
        "fusion", shape, dtype=dtype, device=bench.device, warmup=10, repeat=100, options=options
    )
    return bench.run(spec)


def mode_rows(finished: Finished) -> list[dict[str, Any]]:
    """One row per mode from the typed result and the run's headline figures."""
    figures = finished.figures or {}
    steady, gbps = figures.get("steady_state_ms", {}), figures.get("achieved_gbps", {})
    ceiling = figures.get("ceiling_gbps") or figures.get("copy_ceiling_gbps")
    eager_ms = steady.get("eager")
    rows = []
    for mode in finished.result.modes:
        if not mode.ran:
            rows.append({"mode": mode.mode, "error": mode.error or "not run"})
            continue
        primary = stats(mode.timing.primary_ms)
        host = stats(mode.timing.host_ms)
        ms = steady.get(mode.mode)
        rows.append(
            {
                "mode": mode.mode,
                "kernels_per_call": mode.kernel_count,
                "max_abs_diff": mode.max_abs_diff,
                "median_us": ms * 1e3 if ms else None,
                "iqr_us": primary.iqr * 1e3 if primary else None,
                "host_us": host.median * 1e3 if host else None,
                "speedup_vs_eager": eager_ms / ms if eager_ms and ms else None,
                "gbps": gbps.get(mode.mode),
                "ceiling_pct": 100 * gbps[mode.mode] / ceiling
                if ceiling and gbps.get(mode.mode)
                else None,
                "loop_us_per_call": mode.loop_us_per_call,
            }
        )
    return rows


def compile_rows(finished: Finished) -> list[dict[str, Any]]:
    return [
        {
            "mode": mode.mode,
            "scenario": c.scenario,
            "first_call_s": c.first_call_s,
            "dynamo_s": c.dynamo_s,
            "inductor_s": c.inductor_s,
            "triton_s": c.triton_s,
            "fx_hits": c.fx_cache_hits,
            "fx_misses": c.fx_cache_misses,
            "compiles": c.compiles,
            "detail": c.detail,
        }
        for mode in finished.result.modes
        for c in mode.compile
    ]


def show(bench: Bench, tag: str, finished: Finished) -> dict[str, Any] | None:
    """Print one run's tables; its headline figures (kernel names left out) for the JSON."""
    if not finished.done:
        return None
    bench.show(f"{tag} ({finished.wall_s:.1f} s)", mode_rows(finished))
    if compiled := compile_rows(finished):
        bench.show(f"{tag}: compile latency", compiled)
    figures = dict(finished.figures or {})
    figures.pop("eager_kernel_names", None)
    return figures


def do_bench_check(bench: Bench, finished: Finished, shape: str, dtype: str) -> None:
    """The lab's median beside triton.testing.do_bench's (L2 flushed, median) for one shape."""
    if not finished.done:
        return
    theirs = clean.reference("do-bench", shape, dtype)
    steady = finished.figures["steady_state_ms"]
    rows = [
        {
            "mode": mode,
            "do_bench_us": ms * 1e3,
            "lab_us": steady[mode] * 1e3 if steady.get(mode) else None,
            "diff_pct": (steady[mode] / ms - 1) * 100 if steady.get(mode) else None,
        }
        for mode, ms in theirs.items()
    ]
    bench.show(f"{shape} {dtype}: the lab against do_bench", rows)


PARTS = ("512", "16384", "256", "sweep")


def measure(bench: Bench, settings: Settings) -> dict[str, Any]:
    parts, out = settings.items("parts"), {}
    if "512" in parts:
        run = fusion(bench, "512x512", modes=",".join(FUSION_MODES), fresh_process=True)
        out["512"] = show(bench, "512x512 float32, all modes, every compile scenario", run)
    for dtype in ("float32", "bfloat16") if "16384" in parts else ():
        run = fusion(bench, "16384x16384", dtype, modes=LARGE_MODES, compile_latency=False)
        out[f"16384 {dtype}"] = show(bench, f"16384x16384 {dtype}", run)
        if settings.flag("do_bench"):
            do_bench_check(bench, run, "16384x16384", dtype)
    if "256" in parts:
        run = fusion(bench, "256x256", modes=LAUNCH_MODES, compile_latency=False)
        out["256"] = show(bench, "256x256 float32 (launch-bound)", run)
    if "sweep" in parts:
        sizes = ",".join(settings.items("sweep"))
        run = fusion(bench, "1024x1024", modes=LAUNCH_MODES, compile_latency=False, sweep=sizes)
        if run.done:
            bench.show(f"sweep {sizes} ({run.wall_s:.1f} s)", sweep_rows(run))
            out["sweep"] = sweep_rows(run)
    return out


def sweep_rows(finished: Finished) -> list[dict[str, Any]]:
    return [
        {
            "mode": p.mode,
            "side": p.side,
            "median_us": p.median_ms * 1e3,
            "loop_us_per_call": p.loop_us_per_call,
            "gbps": p.bytes_moved / (p.median_ms / 1e3) / 1e9,
        }
        for p in finished.result.sweep
    ]


RECIPE = Recipe(
    name="fusion-bench",
    summary="fusion's speed checks on a GPU: all modes, 16384² (vs do_bench), launch-bound 256², a sweep",
    measure=measure,
    devices=("cuda",),
    settings={
        "parts": some_of("512,16384,256,sweep", "which checks to run", PARTS),
        "sweep": sides("256,1024,4096,8192,16384", "square sides of the sweep", 1, 65536),
        "do_bench": flag("yes", "time 16384² under triton's do_bench in a clean process too"),
    },
    replaces="scripts/fusion_bench.py",
)
