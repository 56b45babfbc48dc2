"""A child process under the CUDA sanitizer: each ordering's verdict and its conflicting accesses.

CSAN stays on for the life of a process and slows every launch, so it never runs in the worker
that times; the worker starts this module with TORCH_CUDA_SANITIZER=1 (torch enables CSAN at
import) and reads one JSON document from its stdout."""

from __future__ import annotations

import traceback
from pathlib import PurePath

import torch

from runtime_lab.lab import child
from runtime_lab.spec import RunSpec
from runtime_lab.streams.run import side_op
from runtime_lab.streams.run.variants import VARIANT_FUNCTIONS, Workload, cycles_per_ms

USER_FILES = ("runtime_lab/streams/",)  # the lab's ordering code: the "user code" of a stack


def user_line(stack: traceback.StackSummary | None) -> str | None:
    """The innermost frame in the lab's ordering code, as 'variants.py:112 in side_matmul: z = …'."""
    for frame in reversed(list(stack or ())):
        if any(part in frame.filename.replace("\\", "/") for part in USER_FILES):
            if PurePath(frame.filename).name == PurePath(__file__).name:
                continue  # this harness, not the ordering
            return f"{PurePath(frame.filename).name}:{frame.lineno} in {frame.name}: {frame.line}"
    return None


def _access(access, lanes: dict[int, str]) -> dict:
    return {
        "stream": lanes.get(access.stream, f"stream {access.stream}"),
        "operator": str(access.operator).split("(")[0],
        "access": "write" if str(access.type) == "writing to" else "read",
        "aliases": list(access.aliases),
        "is_output": bool(access.is_output),
        "user_line": user_line(access.stack_trace),
    }


def _tensor(ptr: int, w: Workload, allocated: traceback.StackSummary | None) -> str:
    named = {t.data_ptr(): n for t, n in zip(w.inputs, w.names, strict=False)}
    if ptr in named:
        return named[ptr]
    line = user_line(allocated)
    return f"allocated at {line}" if line else f"data_ptr {ptr}"


def _race(error, w: Workload, lanes: dict[int, str]) -> dict:
    return {
        "tensor": _tensor(error.data_ptr, w, error.allocation_stack_trace),
        "current": _access(error.current_access, lanes),
        "previous": _access(error.previous_access, lanes),
    }


def verdict(name: str, w: Workload, trials: int) -> dict:
    """Run the ordering `trials` times; CSAN raises at the first access it cannot order."""
    from torch.cuda._sanitizer import CUDASanitizerErrors

    lanes = {w.default.cuda_stream: "default", w.side.cuda_stream: "side"}
    races, error = [], None
    for _ in range(trials):
        torch.cuda.synchronize()  # CSAN treats a device sync as ordering everything before it
        try:
            VARIANT_FUNCTIONS[name](w)
        except CUDASanitizerErrors as found:
            races += [_race(e, w, lanes) for e in found.errors if hasattr(e, "data_ptr")]
        except Exception as exc:  # an ordering that fails for another reason: say so
            error = f"{type(exc).__name__}: {exc}"[:500]
            break
    torch.cuda.synchronize()
    status = "error" if error else ("race" if races else "clean")
    return {
        "variant": name,
        "verdict": status,
        "races": races[:4],
        "trials": trials,
        "error": error,
    }


def main(args: dict) -> dict:
    from torch.cuda import _sanitizer

    if not getattr(_sanitizer.cuda_sanitizer, "enabled", False):
        return {"error": "the sanitizer did not start (TORCH_CUDA_SANITIZER was not honoured)"}
    device = torch.device(args["device"])
    torch.cuda.set_device(device)
    spec = RunSpec.from_dict(args["spec"])
    generator = torch.Generator(device=device).manual_seed(spec.seed)
    op = side_op.load(spec, device, generator)
    side, default = torch.cuda.Stream(device), torch.cuda.current_stream(device)
    delay = int(cycles_per_ms(device) * args["delay_us"] / 1e3)
    w = Workload(op.inputs, side, default, delay, generator, op.fn, op.fresh, op.names)
    return {"verdicts": [verdict(n, w, args["trials"]) for n in args["variants"]]}


if __name__ == "__main__":
    child.serve(main, errors_as_json=False)  # a crash: the parent's note gives its stderr line
