"""Which import in the zygote's preload asks CUDA before fork (prints each caller's stack).
With --modules: also each candidate compiler module, one at a time, and whether a child forked
after it could still start CUDA (the next step for a worker's warm-up, see docs)."""

import importlib
import os
import sys
import traceback

import torch

# a GPU worker's warm-up imported these after the fork (H100, 2026-12-05: 5.0 s warm-up)
CANDIDATES = (
    "torch._inductor.compile_fx",
    "torch._inductor.inductor_prims",
    "torch._inductor.decomposition",
    "torch._inductor.lowering",
    "torch._inductor.codecache",
    "torch._inductor.select_algorithm",
    "torch._inductor.codegen.triton",
    "torch._inductor.kernel",
    "torch._functorch._aot_autograd.autograd_cache",
    "torch.ao.quantization.fx",
)
CALLS = []


def _wrap(name):
    real = getattr(torch._C, name)

    def spy(*a, **k):
        CALLS.append((name, "".join(traceback.format_stack(limit=14)[:-1])))
        return real(*a, **k)

    setattr(torch._C, name, spy)


def _report(what: str) -> None:
    print(
        f"{what}: threads {len(os.listdir('/proc/self/task'))}, CUDA calls {len(CALLS)}, "
        f"initialised {torch.cuda.is_initialized()}, child bad fork {zygote.child_refused_cuda()}"
    )
    for name, stack in CALLS:
        print("----", name, "\n" + stack)
    CALLS.clear()


for _name in ("_cuda_getDeviceCount", "_cuda_init"):
    if hasattr(torch._C, _name):
        _wrap(_name)

from runtime_lab.runner import zygote  # noqa: E402

try:
    zygote.preload()
    print("preload: fork check passed")
except RuntimeError as e:
    print("preload:", e)
_report("after preload")
if "--modules" in sys.argv:
    for module in CANDIDATES:
        try:
            importlib.import_module(module)
        except Exception as exc:
            print(f"{module}: {type(exc).__name__}: {exc}")
        _report(module)
