"""What a catalog run says about its workload: the figures against what the seed leads one to expect."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from runtime_lab.fusion.report import step
from runtime_lab.fusion.report.figures import FusionFigures
from runtime_lab.fusion.result import FusionResult
from runtime_lab.glossary import registry as glossary
from runtime_lab.report import Metric
from runtime_lab.view.fmt import fmt_bytes
from runtime_lab.workloads.registry import look_for


def catalog_run(result: FusionResult) -> bool:
    """Recorded since the workload catalog (older runs keep the report they had)."""
    return bool(result.ideal_bytes)


def metrics(result: FusionResult, fig: FusionFigures) -> list[Metric]:
    """The bytes model's figures: a training step has none (its bytes model is the forward's)."""
    if not catalog_run(result) or result.training_pass != "fwd":
        return []
    key = fig.summary
    found = [
        Metric(
            "bytes: eager vs ideal",
            f"{fmt_bytes(result.eager_bytes)} vs {fmt_bytes(result.ideal_bytes)}",
            glossary.help_text(
                "fusion",
                "eager_bytes",
                "ideal: each input read once and each output written once, the model a fused "
                "call is read against",
            ),
        ),
    ]
    if result.flops_per_call:
        found.append(
            Metric(
                "arithmetic intensity",
                f"{key['arithmetic_intensity']:.3g} FLOP/B",
                glossary.help_text("fusion", "arithmetic_intensity"),
            )
        )
    best = _best_tflops(fig)
    if result.bound == "compute" and best:
        mode, tflops = best
        ceiling = result.matmul_tflops
        pct = f" ({100 * tflops / ceiling:.0f} % of matmul)" if ceiling else ""
        found.append(
            Metric(
                "best TFLOP/s",
                f"{tflops:.3g}{pct}",
                glossary.help_text(
                    "fusion",
                    f"achieved_tflops.{mode}",
                    f"Here: {mode}; matmul: {result.matmul_detail or 'not measured'}",
                ),
            )
        )
    return found


def _best_tflops(fig: FusionFigures) -> tuple[str, float] | None:
    timed = [(f.mode, f.achieved_tflops) for f in fig.modes if f.achieved_tflops]
    return max(timed, key=lambda pair: pair[1]) if timed else None


def notes(result: FusionResult, fig: FusionFigures) -> list[str]:
    """The workload's 'what to look for', then what happened here, with the figures."""
    if not catalog_run(result):
        return []
    found = look_for(result.variant)
    said = _outcome(result, fig.summary, {f.mode: f for f in fig.modes})
    return found + ([said] if said else []) + _ceiling_notes(result, fig)


def _kernels(mode) -> str:
    count = mode.kernel_count
    return "? kernels" if count is None else f"{count:g} kernel{'' if count == 1 else 's'}"


def _outcome(result: FusionResult, key: Mapping[str, Any], figs: dict) -> str | None:
    by = {m.mode: m for m in result.modes}
    name = key["compiled_mode"]
    eager, compiled = figs.get("eager"), figs.get(name) if name else None
    if not (eager and compiled and eager.steady_state_ms and compiled.steady_state_ms):
        return None
    ratio = eager.steady_state_ms / compiled.steady_state_ms
    if result.training_pass != "fwd":  # the bytes model is the forward's: not quoted here
        return _step_outcome(result, name, ratio, eager, compiled)
    side = (
        f"{name} {compiled.steady_state_ms:.4g} ms ({_kernels(by[name])}) vs eager "
        f"{eager.steady_state_ms:.4g} ms ({_kernels(by['eager'])}); the bytes model: eager "
        f"moves {fmt_bytes(result.eager_bytes)}, a call that reads each input and writes each "
        f"output once {fmt_bytes(result.ideal_bytes)} (eager ÷ ideal = {key['predicted_speedup']:.2f}×)"
    )
    if ratio < 0.95:
        return (
            f"Compiled is slower than eager here ({1 / ratio:.2f}× the time): {side}. Fewer "
            "(or equal) bytes and kernels did not buy time: read the kernels tab for what the "
            "generated kernel does differently."
        )
    if result.bound == "compute":
        return (
            f"Compute-bound: {name} is {ratio:.2f}× eager's speed. {side}. A GEMM stays a library "
            "kernel under torch.compile; what fusion can save is the memory traffic around it."
        )
    return f"{name} is {ratio:.2f}× eager's speed against the {key['predicted_speedup']:.2f}× the bytes model promises: {side}."


def _step_outcome(result: FusionResult, name: str, ratio: float, eager, compiled) -> str:
    """A training step's outcome: its time and kernels per pass, eager against compiled."""
    by = {m.mode: m for m in result.modes}
    words = step.words(result)
    side = (
        f"{name} {compiled.steady_state_ms:.4g} ms ({step.kernels_word(result, by[name])}) vs "
        f"eager {eager.steady_state_ms:.4g} ms ({step.kernels_word(result, by['eager'])})"
    )
    pace = (
        f"{ratio:.2f}× eager's speed"
        if ratio >= 0.95
        else f"slower than eager ({1 / ratio:.2f}× the time)"
    )
    return f"The step ({words}): {name} is {pace}: {side}."


def _ceiling_notes(result: FusionResult, fig: FusionFigures) -> list[str]:
    if result.bound != "compute":
        return []
    if result.matmul_tflops is None:
        return [f"Compute ceiling {result.matmul_detail or 'not measured'}."]
    text = f"Compute ceiling: {result.matmul_tflops:.3g} TFLOP/s measured ({result.matmul_detail})"
    if result.peak_tflops:
        text += f"; datasheet {result.peak_tflops:g} TFLOP/s ({result.peak_detail})"
    return [text + "."]
