"""Whether fusion's headline speed-up holds: tolerance, spread, clocks, contention, caches."""

from __future__ import annotations

from runtime_lab.fusion.report import correctness
from runtime_lab.fusion.report.checks import OVER_CEILING_PCT
from runtime_lab.fusion.report.clocks import AGREES, CLOCK_APART, LAB
from runtime_lab.fusion.report.figures import HOST_BOUND_FRACTION, FusionFigures
from runtime_lab.fusion.result import FusionResult
from runtime_lab.glossary.ratio import span
from runtime_lab.report import CACHE, CLOCKS, CONTENDED, Verdict
from runtime_lab.results import stats


def verdict(result: FusionResult, fig: FusionFigures) -> Verdict | None:
    """Ok when eager's and the compiled mode's figures behind the speed-up hold; else one line
    of what to doubt and the range the speed-up takes (other clocks, quartiles); first, any
    mode timed on a wrong answer or not timed at all. None where the headline quotes no
    speed-up and every mode has a time and an answer within tolerance."""
    wrong = correctness.verdict_lines(result)  # a wrong answer's speed, or none: never green
    if wrong:
        return Verdict(False, " ".join(wrong))
    key = fig.summary
    measured, compiled = key["measured_speedup"], key["compiled_mode"]
    by = {f.mode: f for f in fig.modes}
    if not measured or "eager" not in by or compiled not in by:
        return None
    arms = ("eager", compiled)
    doubts: list[str] = []
    ratios = [measured]
    noisy = [by[m] for m in arms if by[m].noisy]
    if noisy:
        spread = ", ".join(f"{f.mode} {100 * f.iqr_ms / f.steady_state_ms:.0f} %" for f in noisy)
        doubts.append(f"noisy (IQR/median: {spread})")
        ratios += list(quartile_speedups(result, compiled) or ())[:2]
    clocked = _clock_doubts(fig, arms, measured, ratios)
    doubts += clocked
    if clocked and (launch := launch_bound(result, by, arms)):
        gpu = gpu_alone(by, arms)
        doubts.append(launch + (gpu[1] if gpu else ""))
        ratios += [gpu[0]] if gpu else []
    states = {"noise"} if noisy else set()
    states |= {CLOCKS} if clocked else set()
    modes = {m.mode: m for m in result.modes}
    contended = [(m, modes[m].timing.cpu_others_pct) for m in arms if modes[m].timing.contended]
    if contended:
        worst = max(pct for _, pct in contended)
        doubts.append(f"host contended (others took up to {worst:.0f} % of the cores)")
        states.add(CONTENDED)
    throttled = clock_doubt(modes, arms)
    if throttled:
        doubts.append(throttled)
        states.add(CLOCKS)
    cached = [by[m] for m in arms if (by[m].ceiling_pct or 0) > OVER_CEILING_PCT]
    if cached:
        over = ", ".join(f"{f.mode} {f.ceiling_pct:.0f} %" for f in cached)
        doubts.append(f"working set in cache ({over} of the measured ceiling)")
        states.add(CACHE)
    if not doubts:
        return Verdict(True)
    low, high = min(ratios), max(ratios)
    return Verdict(
        False,
        f"Doubt: {'; '.join(doubts)}. The speed-up could be {span(ratios)}.",
        (low, high),
        frozenset(states),
    )


def quartile_speedups(result: FusionResult, compiled: str) -> tuple[float, float, int] | None:
    """Eager's quartiles over the compiled mode's, the far ends: the speed-up within both IQRs,
    (low, high, samples of the smaller arm); None without both arms' samples."""
    found = {m.mode: stats(m.timing.primary_ms) for m in result.modes if m.timing}
    eager, other = found.get("eager"), found.get(compiled)
    if not (eager and other and other.q1 > 0 and other.q3 > 0):
        return None
    return eager.q1 / other.q3, eager.q3 / other.q1, min(eager.count, other.count)


def _clock_doubts(fig: FusionFigures, arms, measured: float, ratios: list[float]) -> list[str]:
    """Per cross-check clock timing both arms: its speed-up joins `ratios`; doubted where either
    arm's reading is flagged or too noisy to judge, or its speed-up is off the lab's by more than
    the looser arm's allowance."""
    rows = {(r["mode"], r["clock"]): r for r in fig.clocks}
    clocks = dict.fromkeys(c for _, c in rows if c != LAB)
    found = []
    for clock in clocks:
        pair = [rows.get((m, clock)) for m in arms]
        if None in pair or not pair[1]["median_ms"]:
            continue
        speedup = pair[0]["median_ms"] / pair[1]["median_ms"]
        ratios.append(speedup)
        allowed = max(r["allowed_pct"] for r in pair) / 100
        off = abs(speedup / measured - 1) > allowed
        if off or any(r["agreement"] != AGREES for r in pair):
            found.append(f"{clock} says {speedup:.2g}×")
    return found


def launch_bound(result: FusionResult, by: dict, arms) -> str | None:
    """Why clocks part on a short GPU call: it is host-bound (figures.HOST_BOUND_FRACTION: the
    host takes nearly as long to issue it, in the harness or in the loop, as the GPU takes to
    run it), so a clock reads the kernel only while work queued before keeps the GPU busy
    (H100, rope 4096×32×128 bf16: host 74 µs, kernel 28 µs; do_bench in the worker read
    0.037 ms, the lab and a clean process 0.028). Where the profiler gave the kernels' own
    time (`by`: the modes' figures), the line sets it beside the events' span, which then
    reads the host's pace."""
    modes = {m.mode: m for m in result.modes}
    for name in reversed(arms):  # the compiled arm first: the short call
        mode = modes.get(name)
        if not (mode and mode.timing and mode.timing.device_ms):
            continue
        device_us = stats(mode.timing.device_ms).median * 1e3
        host_us = max(stats(mode.timing.host_ms).median * 1e3, mode.loop_host_us_per_call or 0)
        if host_us >= HOST_BOUND_FRACTION * device_us:
            kernels = by[name].kernel_us_per_call if name in by else None
            return f"{name} is host-bound ({host_bound_words(host_us, device_us, kernels)})"
    return None


def gpu_alone(by: dict, arms) -> tuple[float, str] | None:
    """The speed-up on the GPU alone and its words, from each arm's profiled kernel time
    (`ModeFigures.kernel_us_per_call`): what a program whose host keeps ahead of the GPU (a
    longer queue, CUDA graphs) would see. None where either arm was not profiled on CUDA."""
    eager, compiled = (by[m].kernel_us_per_call for m in arms)
    if not (eager and compiled):
        return None
    ratio = eager / compiled
    return ratio, (
        f"; on the GPU alone the speed-up is {ratio:.2g}× (kernels {compiled:.0f} vs eager's "
        f"{eager:.0f} µs a call), what a program whose host keeps ahead would see"
    )


def host_bound_words(host_us: float, span_us: float, kernels_us: float | None) -> str:
    """The host's µs per call against the GPU's: its kernels' own sum where the profiler gave
    one (the events' span of a host-bound call is the host's pace, not the GPU's)."""
    if kernels_us:
        return (
            f"the host takes {host_us:.0f} µs to issue a call whose kernels run {kernels_us:.0f} "
            f"µs: the events' {span_us:.0f} µs per call read how far the host was ahead"
        )
    return (
        f"the host takes {host_us:.0f} µs to issue a call the GPU runs in {span_us:.0f} µs: "
        "a clock reads the kernel only while earlier work keeps the GPU busy"
    )


def clock_doubt(modes: dict, arms) -> str | None:
    """Where the two arms were timed at SM clocks more than CLOCK_APART apart (NVML), the
    speed-up holds that clock ratio as well as the code's: a 2 ms GEMM chain held at the power
    cap runs at a lower clock than a short kernel on the same card."""
    states = [(m, modes[m].timing.gpu) for m in arms if modes.get(m) and modes[m].timing]
    clocks = [(m, g) for m, g in states if g and g.median_clock_mhz]
    if len(clocks) < 2:
        return None
    (a, ga), (b, gb) = clocks
    if abs(ga.median_clock_mhz / gb.median_clock_mhz - 1) <= CLOCK_APART:
        return None
    return (
        "GPU clock differed between the arms ("
        + "; ".join(f"{m} {g.median_clock_mhz:.0f} MHz" + _capped(g) for m, g in clocks)
        + ")"
    )


def _capped(state) -> str:
    pct = state.power_capped_pct
    return f", power-capped {pct:.0f} % of its timing" if pct else ""
