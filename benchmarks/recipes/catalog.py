"""Every workload of the catalog in fusion: kernels, tolerance, clocks, the roofline's figures."""

from __future__ import annotations

from typing import Any

from benchmarks.harness import Bench
from benchmarks.recipe import Recipe, Settings, fusion_modes, one_of, some_of
from runtime_lab.shapes import DTYPES
from runtime_lab.spec import build_spec
from runtime_lab.workloads.declare import MODELS
from runtime_lab.workloads.fit import params_text
from runtime_lab.workloads.registry import NAMES, WORKLOADS


def _shape(name: str, preset: str, device: str) -> tuple[str, str]:
    """(shape or preset name, params) for one workload: its first preset matching the setting
    on a GPU (a realistic config), its CPU shape and parameters on a CPU."""
    work = WORKLOADS[name]
    if device == "cpu":
        return "x".join(map(str, work.cpu_shape)), params_text(dict(work.cpu_params))
    found = next((p for p in work.presets if p.name.startswith(preset)), None)
    return (found.name if found else "x".join(map(str, work.default_shape))), ""


def _row(name: str, finished) -> dict[str, Any]:
    result, key = finished.result, finished.figures or {}
    by = {m.mode: m for m in result.modes} if result else {}
    clocks = key.get("clocks") or {}
    lab = (clocks.get("inductor") or {}).get("lab")
    bench = (clocks.get("inductor") or {}).get("triton.do_bench")
    tflops = key.get("achieved_tflops") or {}
    gbps = key.get("achieved_gbps") or {}
    return {
        "workload": name,
        "shape": "x".join(map(str, result.shape)) if result else None,
        "bound": key.get("bound"),
        "eager_kernels": by["eager"].kernel_count if "eager" in by else None,
        "inductor_kernels": by["inductor"].kernel_count if "inductor" in by else None,
        "tolerance": all(m.tolerance_passed for m in by.values()) if by else None,
        "eager_ms": (key.get("steady_state_ms") or {}).get("eager"),
        "inductor_ms": (key.get("steady_state_ms") or {}).get("inductor"),
        "lab_vs_do_bench": lab / bench if lab and bench else None,
        "inductor_gbps": gbps.get("inductor"),
        "inductor_tflops": tflops.get("inductor"),
        "ceiling_gbps": key.get("ceiling_gbps"),
        "matmul_tflops": key.get("matmul_tflops"),
        "eager_over_ideal_bytes": key.get("predicted_speedup"),
    }


def measure(bench: Bench, settings: Settings) -> dict[str, Any]:
    bench.wait_ready()
    chosen = [n for n in settings.text("workloads").split(",") if n] or list(NAMES)
    modes = settings.text("modes")
    rows = []
    for name in chosen:
        shape, params = _shape(name, settings.text("preset"), bench.device)
        options = {"workload": name, "params": params, "modes": modes, "compile_trace": False}
        options["compile_latency"] = False
        spec = build_spec(
            "fusion", shape, dtype=settings.text("dtype"), device=bench.device, options=options
        )
        rows.append(_row(name, bench.run(spec)))
    bench.show(f"Every workload in fusion ({modes}, {settings.text('dtype')})", rows)
    return {row["workload"]: row for row in rows}


RECIPE = Recipe(
    name="catalog",
    summary="every workload in fusion at one realistic shape: kernels, tolerance, clocks, roofline",
    measure=measure,
    settings={
        "workloads": some_of("", "comma-separated names", NAMES, "empty: the whole catalog"),
        "preset": one_of(
            "llama3-8b", "the preset prefix used on a GPU (CPU: each CPU shape)", tuple(MODELS)
        ),
        "dtype": one_of("bfloat16", "the dtype of every run", DTYPES),
        "modes": some_of("eager,inductor", "the fusion modes of every run", fusion_modes()),
    },
)
