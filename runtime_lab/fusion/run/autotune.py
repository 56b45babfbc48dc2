"""Inductor's autotune choices, read while a max-autotune mode's first call compiles."""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field

import torch

from runtime_lab.fusion.result import Autotune, AutotuneChoice, AutotuneOp
from runtime_lab.fusion.run.autotune_text import Block, kind_of, parse
from runtime_lab.fusion.run.modes import INDUCTOR_MODES
from runtime_lab.results import CompileLatency

TUNED_MODES = tuple(m for m, name in INDUCTOR_MODES.items() if name and "max-autotune" in name)
FROM_CACHE = "autotune results came from cache: no choices benchmarked in this job"
NOTHING = "no GEMM or template to autotune in this workload: Inductor benchmarked no choices"
KINDS = {"ExternKernelCaller": "extern", "TritonTemplateCaller": "triton"}


def tuned(mode: str, device: torch.device) -> bool:
    """Whether a mode's first call autotunes GEMMs and templates (max-autotune, on CUDA)."""
    return mode in TUNED_MODES and device.type == "cuda"


@dataclass(frozen=True)
class Fed:
    """One op as Inductor's feedback hook handed it over; `at`: how much stderr had come by then."""

    name: str
    op: str
    choices: tuple[AutotuneChoice, ...]
    at: int


@dataclass
class Capture:
    """What one first call autotuned: stderr's text and the feedback hook's ops."""

    text: list[str] = field(default_factory=list)
    size: int = 0
    fed: list[Fed] = field(default_factory=list)
    active: bool = True
    failure: str | None = None

    def write(self, text: str) -> None:
        if self.active:
            self.text.append(text)
            self.size += len(text)

    def feedback(self, timings, name, input_nodes, *_rest) -> None:
        """Inductor's feedback hook: called after each op's autotuning, benchmarked or cached.
        It runs inside the compile, so nothing here may raise into it."""
        if not self.active:
            return
        try:
            choices = tuple(_choice(c, t) for c, t in timings.items())
            self.fed.append(Fed(str(name), _op_label(str(name), input_nodes), choices, self.size))
        except Exception as exc:  # a torch whose objects differ: say so, keep the compile
            self.failure = f"{type(exc).__name__}: {exc}"[:300]


class Tee:
    """sys.stderr as it was, with what is written also kept (Inductor prints its blocks there)."""

    def __init__(self, stream, capture: Capture) -> None:
        self.stream, self.capture = stream, capture

    def write(self, text: str) -> int:
        self.capture.write(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


def _kind(choice) -> str:
    # a wrapped choice (Inductor's DataProcessorChoiceCallerWrapper) is its wrapped one's kind
    inner = getattr(choice, "_wrapped", choice)
    found = [KINDS[cls.__name__] for cls in type(inner).__mro__ if cls.__name__ in KINDS]
    if found:  # the most derived of Inductor's classes it is
        return found[0]
    return "triton" if kind_of(str(inner.name)) == "triton" else "other"  # CUTLASS, C++, subgraph


def _choice(choice, time_ms) -> AutotuneChoice:
    ms = float(time_ms)
    return AutotuneChoice(
        choice=str(choice.name),
        kind=_kind(choice),
        config=str(getattr(choice, "description", "") or ""),
        time_ms=ms if math.isfinite(ms) else None,
    )


def _op_label(name: str, input_nodes) -> str:
    """name(sizes) as Inductor prints it: each input's size hints, 'x'-joined."""
    try:
        from torch._inductor.virtualized import V

        sizevars = V.graph.sizevars
        hints = getattr(sizevars, "optimization_hints", None) or sizevars.size_hints
        sizes = ["x".join(map(str, hints(n.get_size()))) for n in input_nodes]
    except Exception:  # outside a graph, or a torch without either: the sizes as they are
        sizes = ["x".join(map(str, n.get_size())) for n in input_nodes]
    return f"{name}({', '.join(sizes)})"


def _ranked(choices) -> tuple[AutotuneChoice, ...]:
    """Fastest first (failed ones last); the fastest is the winner."""
    order = sorted(choices, key=lambda c: (c.time_ms is None, c.time_ms or 0.0))
    return tuple(
        AutotuneChoice(c.choice, c.kind, c.config, c.time_ms, i == 0 and c.time_ms is not None)
        for i, c in enumerate(order)
    )


def _from_block(block: Block) -> AutotuneOp:
    """An op from its printed block alone (no feedback hook): kinds from the names."""
    choices = (AutotuneChoice(n, kind_of(n), cfg, ms) for n, ms, cfg in block.choices)
    return AutotuneOp(block.op, _ranked(choices), block.autotune_s, block.precompile_s)


def join(fed: list[Fed], text: str) -> tuple[AutotuneOp, ...]:
    """Each hooked op with the block Inductor printed for it just before (its label and seconds);
    an op without one came from the autotune cache. Blocks no hook call claimed (a torch without
    the hook) become ops of their own."""
    blocks = parse(text)
    used: set[int] = set()
    ops, since = [], 0
    for found in fed:
        mine = [
            i
            for i, b in enumerate(blocks)
            if i not in used and b.name == found.name and since <= b.end <= found.at
        ]
        since = found.at
        if not mine:
            ops.append(AutotuneOp(found.op, _ranked(found.choices), benchmarked=False))
            continue
        used.add(mine[-1])
        block = blocks[mine[-1]]
        ops.append(
            AutotuneOp(block.op, _ranked(found.choices), block.autotune_s, block.precompile_s)
        )
    return (*ops, *(_from_block(b) for i, b in enumerate(blocks) if i not in used))


def result(capture: Capture | None, first: CompileLatency | None) -> Autotune | None:
    """The capture as the mode records it (None: the mode does not autotune here), with the
    reason when no op was autotuned: a cache served the compile, or nothing was there to tune."""
    if capture is None:
        return None
    ops = join(capture.fed, "".join(capture.text))
    if ops:
        return Autotune(ops)
    if capture.failure:
        return Autotune(note=f"autotune choices not read from this torch: {capture.failure}")
    if first is not None and first.fx_cache_hits:
        return Autotune(note=f"{FROM_CACHE} (Inductor's FX graph cache served the compile)")
    if first is not None and not first.compiles:
        return Autotune(note=f"{FROM_CACHE} (compiled by an earlier job in this worker)")
    return Autotune(note=NOTHING)


def _hook(stack: ExitStack, capture: Capture) -> bool:
    """Register capture.feedback with Inductor's feedback hook, removed on exit; False where this
    torch has no such hook (the printed blocks are then all there is)."""
    from torch._inductor import select_algorithm as sa

    if not hasattr(sa, "add_feedback_saver"):
        return False
    sa.add_feedback_saver(capture.feedback)

    def remove() -> None:
        capture.active = False  # inert even where it cannot be removed
        getter = getattr(sa, "get_algorithm_selector_cache", None)
        cache = getter() if getter else getattr(sa, "_ALGORITHM_SELECTOR_CACHE", None)
        savers = getattr(cache, "feedback_saver_fns", None)
        if isinstance(savers, list) and capture.feedback in savers:
            savers.remove(capture.feedback)

    stack.callback(remove)
    return True


@contextmanager
def capture(mode: str, device: torch.device) -> Iterator[Capture | None]:
    """While inside, what Inductor autotunes (None: this mode does not autotune here)."""
    if not tuned(mode, device):
        yield None
        return
    import torch._inductor.config as inductor_config

    found = Capture()
    with ExitStack() as stack:
        if not _hook(stack, found) and hasattr(inductor_config, "autotune_num_choices_displayed"):
            # the printed blocks are all there is: have them list every choice, not the fastest 10
            stack.enter_context(inductor_config.patch(autotune_num_choices_displayed=None))
        saved = sys.stderr
        sys.stderr = Tee(saved, found)
        stack.callback(setattr, sys, "stderr", saved)
        yield found
