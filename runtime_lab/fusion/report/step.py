"""A training step in fusion's report: the pass in words, kernels per pass, what was saved for backward."""

from __future__ import annotations

from runtime_lab.fusion.result import FusionResult, ModeResult
from runtime_lab.passes import WORDS
from runtime_lab.results import stats
from runtime_lab.view.fmt import fmt_bytes

# why a training step's report shows no roofline, intensity or predicted speed-up, and the
# forward's GB/s not at all: the step has its own bytes model (ideal_step_bytes), no FLOPs one
HIDDEN_NOTE = (
    "The roofline, arithmetic intensity and the predicted speed-up are hidden for this run "
    "({words}): the FLOPs model and eager's op-by-op bytes are the forward's. Its bandwidth "
    "reads the step's own ideal bytes (below), never the forward's over the step's time."
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
    found += [n for n in (saved_note(result), bytes_note(result)) if n]
    return found


def lean_saved(result: FusionResult):
    """The mode whose forward saved the fewest bytes for its backward: the step's ideal keeps
    what the best partition kept (AOTAutograd's, typically), not eager's every node."""
    kept = [m for m in result.modes if m.saved is not None]
    return min(kept, key=lambda m: m.saved.bytes) if kept else None


def ideal_step_bytes(result: FusionResult) -> int | None:
    """The least a training step must move, each tensor once: the backward reads grad_output
    and what the leanest mode saved (inputs it kept included) and writes the gradients; with
    the forward (fwd_bwd), the forward's ideal bytes and the saved activations written. None
    for a forward run and where a part was not recorded."""
    lean = lean_saved(result)
    if not stepped(result) or lean is None or result.grad_output_bytes is None:
        return None
    backward = result.grad_output_bytes + lean.saved.bytes + (result.grad_bytes or 0)
    if result.training_pass == "bwd":
        return backward
    if not result.ideal_bytes:
        return None
    return result.ideal_bytes + lean.saved.activation_bytes + backward


def step_gbps(result: FusionResult) -> dict[str, float]:
    """Each timed mode's bandwidth over the step's ideal bytes (its median step time)."""
    ideal = ideal_step_bytes(result)
    if ideal is None:
        return {}
    found = {}
    for mode in result.modes:
        s = stats(mode.timing.primary_ms) if mode.timing else None
        if s and s.median > 0:
            found[mode.mode] = ideal / (s.median / 1e3) / 1e9
    return found


def bytes_note(result: FusionResult) -> str | None:
    """The step's bytes model in words, with each mode's bandwidth over it."""
    ceiling_gbps = result.ceiling_gbps
    ideal, lean = ideal_step_bytes(result), lean_saved(result)
    if ideal is None:
        return None
    parts = [
        f"grad_output read ({fmt_bytes(result.grad_output_bytes)})",
        f"what {lean.mode} saved read back ({fmt_bytes(lean.saved.bytes)})",
        f"the gradients written ({fmt_bytes(result.grad_bytes or 0)})",
    ]
    if result.training_pass == "fwd_bwd":
        parts = [
            f"the forward's ideal bytes ({fmt_bytes(result.ideal_bytes)})",
            f"its activations written ({fmt_bytes(lean.saved.activation_bytes)})",
            *parts,
        ]
    rates = [
        f"{mode} {gbps:,.0f} GB/s"
        + (f" ({100 * gbps / ceiling_gbps:.0f} % of the ceiling)" if ceiling_gbps else "")
        for mode, gbps in step_gbps(result).items()
    ]
    text = f"The step's ideal bytes, {fmt_bytes(ideal)}: {', '.join(parts)}, each once."
    return text + (f" Over each mode's step time: {'; '.join(rates)}." if rates else "")
