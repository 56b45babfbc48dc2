"""Every workload of the catalog in fusion: kernels, tolerance, clocks, the roofline's figures,
and on a GPU each figure beside a clean process's (plain torch.compile, do_bench)."""

from __future__ import annotations

import json
import statistics
from typing import Any

from benchmarks import clean
from benchmarks.harness import Bench
from benchmarks.recipe import Recipe, Settings, flag, fusion_modes, one_of, some_of, whole
from runtime_lab import passes
from runtime_lab.fusion.report.clocks import CLOCK_APART
from runtime_lab.fusion.report.figures import kernel_us
from runtime_lab.fusion.report.verdict import host_bound_words
from runtime_lab.passes import PASSES
from runtime_lab.results import GpuState, from_plain
from runtime_lab.shapes import DTYPES
from runtime_lab.spec import build_spec
from runtime_lab.workloads.declare import MODELS
from runtime_lab.workloads.fit import params_text, spec_params
from runtime_lab.workloads.registry import NAMES, WORKLOADS


def _shape(name: str, preset: str, device: str) -> tuple[str, str]:
    """(shape or preset name, params) for one workload: its first preset matching the setting
    on a GPU (a realistic config), its CPU shape and parameters on a CPU."""
    work = WORKLOADS[name]
    if device == "cpu":
        return "x".join(map(str, work.cpu_shape)), params_text(dict(work.cpu_params))
    found = next((p for p in work.presets if p.name.startswith(preset)), None)
    return (found.name if found else "x".join(map(str, work.default_shape))), ""


# lab ÷ clean outside this band is a difference to explain; calls under MIN_JUDGED_MS are
# launch-bound (a few µs of host or launch path moves them by more than 2 %): shown, not judged
AGREE = 0.02
CPU_CLOCK = "torch.utils.benchmark"  # what a clean process times with where there is no CUDA
MIN_JUDGED_MS = 0.02
COMPARED = ("eager", "inductor")


def _spec(name: str, settings: Settings, device: str):
    shape, params = _shape(name, settings.text("preset"), device)
    options = {"workload": name, "params": params, "modes": settings.text("modes")}
    options["pass"] = settings.text("pass")
    options |= {"compile_trace": False, "compile_latency": False}
    return build_spec("fusion", shape, dtype=settings.text("dtype"), device=device, options=options)


def _clean(spec, runs: int) -> dict[str, Any]:
    """The workload alone in `runs` fresh interpreters (before any lab worker shares the
    machine): the median figure per mode, the range the processes spanned (a 28 µs kernel's
    figure moved by 5 % between clean processes on the H100, its autotuned config too), and
    the Triton configs each process picked. Only the compared modes the lab ran are timed."""
    shape = "x".join(map(str, spec.shape))
    args = ("workload", spec.option("workload"), shape, spec.dtype, str(spec.seed))
    modes = [m for m in COMPARED if m in spec.option("modes").split(",")]
    if not modes:
        return {"error": f"no mode to compare: the run's modes have none of {', '.join(COMPARED)}"}
    tail = (json.dumps(spec_params(spec)), passes.of(spec), spec.device, ",".join(modes))
    found = []
    for _ in range(runs):
        try:
            found.append(clean.reference(*args, *tail))
        except Exception as exc:  # the lab's row still stands; say why it has no clean figure
            return {"error": f"{type(exc).__name__}: {exc}"[-500:]}
    out: dict[str, Any] = {"runs": runs, "inductor_kernels": found[0].get("inductor_kernels")}
    out["clock"] = found[0].get("clock")
    for mode in modes:
        figures = sorted(f[f"{mode}_ms"] for f in found)
        out[f"{mode}_ms"] = statistics.median(figures)
        out[f"{mode}_ms_range"] = (figures[0], figures[-1])
        out[f"{mode}_peak_mib"] = max(f.get(f"{mode}_peak_mib") or 0.0 for f in found) or None
        states = [from_plain(GpuState, f.get(f"{mode}_gpu")) for f in found]
        out[f"{mode}_gpu"] = [s for s in states if s is not None]
    out["configs"] = sorted({_configs(f.get("inductor_kernels") or []) for f in found})
    return out


def _configs(kernels) -> str:
    return "; ".join(f"{k['name']}: {k['config']}" for k in kernels) or "none seen"


def on_cpu(clock: str | None) -> bool:
    """Whether the clean processes ran on a CPU (timed with torch.utils.benchmark)."""
    return clock == CPU_CLOCK


def lab_figure(row: dict[str, Any], clock: str | None, mode: str) -> float | None:
    """The lab's figure set beside a clean one timed by `clock`: on a GPU its steady state
    (both sides flush L2 between calls: do_bench does); on a CPU its own torch.utils.benchmark
    clock, the clean side's (the lab's harness flushes the caches between calls, Timer does
    not)."""
    if on_cpu(clock):
        return (row.get("lab_timer_ms") or {}).get(mode)
    return row.get(f"{mode}_ms")


def _why(mode: str, ratio: float, ref: dict[str, Any], lab: dict[str, Any]) -> str:
    """What differs where lab ÷ clean is outside the band: the call too short to judge, a host
    that cannot keep the GPU busy (launch-bound), or the Triton config each side picked."""
    theirs = ref[f"{mode}_ms"]
    if theirs < MIN_JUDGED_MS:
        return f"{mode}: {theirs * 1e3:.1f} µs per call, under the judged 20 µs"
    said = f"{mode}: lab ÷ clean {ratio:.3f}"
    if on_cpu(ref.get("clock")):  # no queue to be ahead of, no Triton configs
        return said
    clocks = clock_note(lab.get("gpu", {}).get(mode), ref.get(f"{mode}_gpu") or [])
    if clocks:
        said += f"; {clocks}"
    host, kernels = lab["host_us"].get(mode), (lab.get("kernel_us") or {}).get(mode)
    if host and host > (kernels or theirs * 1e3):  # the clean figure: the GPU's, unprofiled
        said += f"; launch-bound: {host_bound_words(host, theirs * 1e3, kernels)}"
    if mode != "eager":
        said += _config_words(_configs(lab["kernels"]), ref, mode)
    return said


def _config_words(mine: str, ref: dict[str, Any], mode: str) -> str:
    """The Triton configs each side autotuned: the same, the lab's among the clean processes'
    (which differ among themselves: their figures' spread says how much that moved), or not."""
    configs = ref.get("configs") or []
    if [mine] == configs:
        return "; same kernels and configs"
    if mine in configs:
        low, high = ref[f"{mode}_ms_range"]
        return (
            f"; the lab's configs are one clean process's ({len(configs)} sets among them, "
            f"their figures {100 * (high / low - 1):.1f} % apart)"
        )
    return f"; configs differ: lab [{mine}] vs clean [{' / '.join(configs)}]"


def clock_note(lab: GpuState | None, clean: list[GpuState]) -> str | None:
    """The SM clock each side timed at, where they differ by more than CLOCK_APART, the fusion
    report's own threshold for clocks apart (a GEMM chain held
    at the power cap runs slower than in a short burst on a cool card): the figures differ by
    that much before any code does. None where either side has no clock or they agree."""
    theirs = [s.median_clock_mhz for s in clean if s.median_clock_mhz]
    mine = lab.median_clock_mhz if lab else None
    if not (mine and theirs):
        return None
    ref = statistics.median(theirs)
    if abs(mine / ref - 1) <= CLOCK_APART:
        return None
    capped = [
        f"{side} power-capped {pct:.0f} % of its timing"
        for side, pct in (("lab", lab.power_capped_pct), ("clean", _capped(clean)))
        if pct
    ]
    return f"SM clock lab {mine:.0f} vs clean {ref:.0f} MHz" + (
        f" ({', '.join(capped)})" if capped else ""
    )


def _capped(states: list[GpuState]) -> float | None:
    found = [s.power_capped_pct for s in states if s.power_capped_pct is not None]
    return statistics.median(found) if found else None


def _median_clock(states) -> float | None:
    found = [s.median_clock_mhz for s in states if s and s.median_clock_mhz]
    return round(statistics.median(found)) if found else None


def versus(row: dict[str, Any], ref: dict[str, Any], lab: dict[str, Any]) -> dict[str, Any]:
    """lab ÷ clean per mode and, where a judged figure is outside the clean processes' own
    range widened by AGREE, what differs."""
    ratios, why = {}, []
    for mode in COMPARED:
        mine, theirs = lab_figure(row, ref.get("clock"), mode), ref.get(f"{mode}_ms")
        ratios[mode] = mine / theirs if mine and theirs else None
        if ratios[mode] is None:
            continue
        low, high = ref[f"{mode}_ms_range"]
        if low * (1 - AGREE) <= mine <= high * (1 + AGREE):
            continue
        why.append(_why(mode, ratios[mode], ref, lab))
    return {
        "clean_eager_ms": ref.get("eager_ms"),
        "clean_inductor_ms": ref.get("inductor_ms"),
        "clean_runs": ref.get("runs"),
        "clean_clock": ref.get("clock"),
        "lab_clock_compared": CPU_CLOCK if on_cpu(ref.get("clock")) else "lab",
        "clean_peak_mib": {m: ref.get(f"{m}_peak_mib") for m in COMPARED},
        "clean_ms_range": {m: ref.get(f"{m}_ms_range") for m in COMPARED},
        "lab_vs_clean": ratios,
        "clean_kernels": ref.get("inductor_kernels"),
        "clean_configs": ref.get("configs"),
        "lab_kernels": lab["kernels"],
        # each mode's kernels' own µs per call in the lab (profiler, CUDA): a host-bound call's
        # clocks read the host's pace, this the GPU's
        "lab_kernel_us": lab.get("kernel_us"),
        # the median SM clock (MHz, NVML) while each side timed; None without NVML
        "sm_clock_mhz": {
            m: {
                "lab": _median_clock([lab.get("gpu", {}).get(m)]),
                "clean": _median_clock(ref.get(f"{m}_gpu") or []),
            }
            for m in COMPARED
        },
        "clean_error": ref.get("error"),
        "difference": " | ".join(why) or None,
    }


def _lab_side(result) -> dict[str, Any]:
    """What the lab's run says beside its figures: the inductor mode's Triton kernels and
    configs, each mode's host time to issue one call in its back-to-back loop, and its
    kernels' own time per call (the profiler's, CUDA)."""
    by = {m.mode: m for m in result.modes} if result else {}
    mode = by.get("inductor")
    kernels = (
        [{"name": k.name, "config": k.config} for k in (mode.triton_kernels or ())] if mode else []
    )
    host = {m: by[m].loop_host_us_per_call for m in COMPARED if m in by}
    gpu = {m: by[m].timing.gpu for m in COMPARED if m in by and by[m].timing}
    kernel_time = {m: kernel_us(by[m]) for m in COMPARED if m in by}
    return {"kernels": kernels, "host_us": host, "gpu": gpu, "kernel_us": kernel_time}


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
        "eager_kernels": _count(by["eager"].kernel_count) if "eager" in by else None,
        "inductor_kernels": _count(by["inductor"].kernel_count) if "inductor" in by else None,
        "pass": passes.of(finished.job.spec),
        # a pass with a backward: kernels per call of each pass, per mode (None in fwd)
        "forward_kernels": _per_mode(by, "forward_kernels"),
        "backward_kernels": _per_mode(by, "backward_kernels"),
        # every mode that was checked passed (a mode not checked, e.g. one that raised, is in
        # not_timed); a mode outside tolerance is still timed, and named here
        "tolerance": all(m.tolerance_passed is not False for m in by.values()) if by else None,
        "outside_tolerance": ", ".join(key.get("outside_tolerance") or []) or None,
        "not_timed": "; ".join(f"{m}: {why}" for m, why in (key.get("not_timed") or {}).items())
        or None,
        "eager_ms": (key.get("steady_state_ms") or {}).get("eager"),
        "inductor_ms": (key.get("steady_state_ms") or {}).get("inductor"),
        "lab_vs_do_bench": lab / bench if lab and bench else None,
        # each mode's torch.utils.benchmark clock in the worker: on a CPU, the figure set beside
        # the clean processes' (the same clock, no cache flush between calls)
        "lab_timer_ms": {m: (clocks.get(m) or {}).get(CPU_CLOCK) for m in COMPARED},
        "inductor_gbps": gbps.get("inductor"),
        "inductor_tflops": tflops.get("inductor"),
        "ceiling_gbps": key.get("ceiling_gbps"),
        "matmul_tflops": key.get("matmul_tflops"),
        "eager_over_ideal_bytes": key.get("predicted_speedup"),
    }


def _per_mode(by: dict, field: str) -> dict[str, Any] | None:
    """{mode: that mode's figure}, or None where no mode has one (a fwd run)."""
    found = {m: _count(getattr(r, field)) for m, r in by.items()}
    return found if any(v is not None for v in found.values()) else None


def _count(launches: float | None) -> int | float | None:
    """Kernels per call as a whole number where they are one (every call launched as many):
    the table then shows 15, not 15.000."""
    return int(launches) if launches is not None and float(launches).is_integer() else launches


def measure(bench: Bench, settings: Settings) -> dict[str, Any]:
    chosen = [n for n in settings.text("workloads").split(",") if n] or list(NAMES)
    modes = settings.text("modes")
    specs = {name: _spec(name, settings, bench.device) for name in chosen}
    with_clean = settings.flag("clean")
    # every clean process first: none may start while a lab worker times on the same cores
    runs = settings.whole("clean_runs")
    refs = {name: _clean(spec, runs) for name, spec in specs.items()} if with_clean else {}
    if with_clean and bench.device == "cpu":
        bench.note(
            "on a CPU the clean processes and the lab are set side by side on torch.utils."
            "benchmark (no do_bench without CUDA): a shared CPU's noise often exceeds the 2 % "
            "band, and a fresh process's glibc heap gives freed memory back and faults it in "
            "again on every call, where the lab's forked worker reuses its heap "
            "(docs/evidence/2026-12-06-session-14.md)"
        )
    bench.wait_ready()
    rows = []
    for name, spec in specs.items():
        finished = bench.run(spec)
        row = _row(name, finished)
        if name in refs:
            row |= versus(row, refs[name], _lab_side(finished.result))
        rows.append(row)
    shown = [{k: v for k, v in row.items() if k not in CLEAN_KEYS} for row in rows]
    bench.show(f"Every workload in fusion ({modes}, {settings.text('dtype')})", shown)
    show_versus(bench, rows, bool(refs))
    return {row["workload"]: row for row in rows}


def show_versus(bench, rows: list[dict[str, Any]], cleaned: bool) -> None:
    """The lab beside the clean processes, on the clock they timed with; nothing where none
    ran (`--set clean=no`)."""
    if not cleaned:
        return
    clock = CPU_CLOCK if bench.device == "cpu" else "do_bench"
    bench.show(f"The lab beside a clean process (ms per call, {clock})", versus_rows(rows))


CLEAN_KEYS = (
    "clean_runs",
    "clean_clock",
    "lab_clock_compared",
    "lab_timer_ms",
    "clean_peak_mib",
    "clean_ms_range",
    "clean_configs",
    "clean_eager_ms",
    "clean_inductor_ms",
    "lab_vs_clean",
    "clean_kernels",
    "lab_kernels",
    "lab_kernel_us",
    "clean_error",
    "difference",
    "sm_clock_mhz",
)


def versus_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One line per workload: each compared mode's lab and clean figure and their ratio."""
    out = []
    for row in rows:
        line: dict[str, Any] = {"workload": row["workload"]}
        for mode in COMPARED:
            line[f"{mode}_lab_ms"] = lab_figure(row, row.get("clean_clock"), mode)
            line[f"{mode}_clean_ms"] = row.get(f"clean_{mode}_ms")
            line[f"{mode}_lab_÷_clean"] = (row.get("lab_vs_clean") or {}).get(mode)
        clocks = row.get("sm_clock_mhz") or {}
        if any(side for mode in clocks.values() for side in mode.values()):  # NVML read them
            line["sm_mhz_lab/clean"] = " · ".join(
                f"{mode} {c['lab'] or '-'}/{c['clean'] or '-'}" for mode, c in clocks.items()
            )
        peaks = {m: p for m, p in (row.get("clean_peak_mib") or {}).items() if p is not None}
        if peaks:  # CUDA only: the step's peak as the allocator reads it
            line["clean_peak_mib"] = peaks
        line["difference"] = row.get("difference") or row.get("clean_error")
        out.append(line)
    return out


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
        "pass": one_of("fwd", "the training step's pass of every run (and clean process)", PASSES),
        "modes": some_of("eager,inductor", "the fusion modes of every run", fusion_modes()),
        "clean": flag("yes", "each workload also in a clean process (lab_vs_clean)"),
        "clean_runs": whole("1", "clean processes per workload (their range is the band)", 1, 5),
    },
)
