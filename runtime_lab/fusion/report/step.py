"""A training step in fusion's report: the pass in words, kernels per pass, what was saved for backward."""

from __future__ import annotations

from runtime_lab.fusion.result import FusionResult, ModeResult
from runtime_lab.passes import WORDS
from runtime_lab.view.fmt import fmt_bytes

# why a training step's report shows no GB/s, roofline, intensity or predicted speed-up
HIDDEN_NOTE = (
    "Bandwidth (GB/s, % of ceiling), the roofline, arithmetic intensity and the predicted "
    "speed-up are hidden for this run ({words}): the bytes and FLOPs models are the forward's, "
    "and over the step's time they would read as a bandwidth no kernel achieved."
)


def stepped(result: FusionResult) -> bool:
    """Whether the run timed a training step (bwd, fwd_bwd) rather than the forward alone."""
    return result.training_pass != "fwd"


def words(result: FusionResult) -> str:
    """The pass as the report says it: "forward + backward", "backward only"; "" for fwd."""
    return WORDS.get(result.training_pass, result.training_pass) if stepped(result) else ""


def _count(value: float | None) -> str:
    return "—" if value is None else f"{value:g}"


def counts(result: FusionResult, mode: ModeResult) -> str:
    """A mode's launches per call, by pass where the run timed a step: "2 + 3" (forward +
    backward), "3" (backward only); the forward's count, or a step not split, as one number."""
    if not stepped(result) or mode.backward_kernels is None:
        return _count(mode.kernel_count)
    if result.training_pass == "bwd":
        return _count(mode.backward_kernels)
    return f"{_count(mode.forward_kernels)} + {_count(mode.backward_kernels)}"


def kernels_word(result: FusionResult, mode: ModeResult) -> str:
    """counts() with its noun: "2 + 3 kernels", "1 kernel"."""
    found = counts(result, mode)
    return f"{found} kernel{'' if found == '1' else 's'}"


def _saved_parts(saved) -> tuple[str, str, str]:
    """The bytes, the tensor count and the bytes besides the inputs, as saved_text and
    saved_figure write them."""
    tensors = f"{saved.tensors} tensor{'' if saved.tensors == 1 else 's'}"
    return fmt_bytes(saved.bytes), tensors, fmt_bytes(saved.activation_bytes)


def saved_text(mode: ModeResult) -> str:
    """What the mode's forward saved for its backward, in a phrase; "—" where not recorded."""
    if mode.saved is None:
        return "—"
    size, tensors, besides = _saved_parts(mode.saved)
    return f"{size} in {tensors} ({besides} besides the inputs)"


def saved_figure(mode: ModeResult) -> str:
    """The same as a metric's value: the bytes first, the rest after them ("1.5 MiB (7 tensors;
    1.25 MiB besides the inputs)"), so the figure fits its column."""
    if mode.saved is None:
        return "—"
    size, tensors, besides = _saved_parts(mode.saved)
    return f"{size} ({tensors}; {besides} besides the inputs)"


def saved_note(result: FusionResult) -> str | None:
    """Eager's saved tensors against each compiled mode's: what AOTAutograd's partitioner
    kept (it recomputes cheap ops in the backward rather than hold their outputs)."""
    kept = [m for m in result.modes if m.saved is not None]
    eager = next((m for m in kept if m.mode == "eager"), None)
    if not kept:
        return None
    parts = [f"{m.mode} {saved_text(m)}" for m in kept]
    text = "Saved for backward (autograd's pack hook on one more step): " + "; ".join(parts)
    others = [m for m in kept if m is not eager]
    if eager is not None and eager.saved.activation_bytes and others:
        shares = [
            f"{m.mode} {100 * m.saved.activation_bytes / eager.saved.activation_bytes:.2g} %"
            for m in others
        ]
        text += f". Activations held, as a share of eager's: {', '.join(shares)}"
    return text + "."


def notes(result: FusionResult) -> list[str]:
    """A training step's notes: what is hidden and why, what each mode saved for backward."""
    if not stepped(result):
        return []
    found = [HIDDEN_NOTE.format(words=words(result))]
    said = saved_note(result)
    return found + ([said] if said else [])
