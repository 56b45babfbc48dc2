"""The training step's passes (fwd, bwd, fwd_bwd): the option each experiment that runs a step takes."""

from __future__ import annotations

from runtime_lab.options import OptionSpec

PASSES = ("fwd", "bwd", "fwd_bwd")
DEFAULT = "fwd"  # what every run recorded before the option was: stored runs load as fwd
PASS_HELP = (
    "which pass of a training step runs: fwd (the forward alone, as every run before the "
    "option), bwd (the backward alone: the forward runs outside the timed region and its graph "
    "is retained, as tritonbench's --mode bwd does) or fwd_bwd (forward then backward); bwd and "
    "fwd_bwd give the workload's floating inputs requires_grad"
)


# the pass as every report says it
WORDS = {"fwd": "forward", "bwd": "backward only", "fwd_bwd": "forward + backward"}


def said(step: str) -> str:
    """ ", forward + backward" for a headline where the run timed a training step; "" for fwd
    (every run before the option, and the default)."""
    return f", {WORDS.get(step, step)}" if has_backward(step) else ""


def pass_option() -> dict[str, OptionSpec]:
    """{"pass": …} for an ExperimentInfo's options."""
    return {"pass": OptionSpec(default=DEFAULT, help=PASS_HELP, choices=PASSES)}


def of(spec) -> str:
    """A spec's pass; a spec built without the option (an experiment that has none): fwd."""
    return dict(spec.options).get("pass", DEFAULT)


def has_backward(step: str) -> bool:
    """Whether this pass runs a backward (and so needs inputs that require grad)."""
    return step != "fwd"


def has_forward(step: str) -> bool:
    """Whether the timed callable of this pass runs the forward."""
    return step != "bwd"


def no_backward(step: str, workload) -> str | None:
    """One line when this pass needs a backward the workload declares it has none (its info's
    no_backward says why), else None: said with the spec, before anything runs."""
    why = getattr(workload, "no_backward", "")
    if not has_backward(step) or not why:
        return None
    return f"{step!r}: {workload.name} cannot be differentiated ({why}); allowed: fwd"
