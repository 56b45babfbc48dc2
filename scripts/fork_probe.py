"""Which import in the zygote's preload asks CUDA before fork (prints each caller's stack)."""

import os
import sys
import traceback

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CALLS = []


def _wrap(name):
    real = getattr(torch._C, name)

    def spy(*a, **k):
        CALLS.append((name, "".join(traceback.format_stack(limit=14)[:-1])))
        return real(*a, **k)

    setattr(torch._C, name, spy)


for _name in ("_cuda_getDeviceCount", "_cuda_init"):
    if hasattr(torch._C, _name):
        _wrap(_name)

from runtime_lab.runner import zygote  # noqa: E402

try:
    zygote._preload()
    print("preload: fork check passed")
except RuntimeError as e:
    print("preload:", e)
print("threads:", len(os.listdir("/proc/self/task")), "calls:", len(CALLS))
for name, stack in CALLS:
    print("----", name, "\n" + stack)
pid = os.fork()
if pid == 0:
    os._exit(2 if torch.cuda._is_in_bad_fork() else 0)
_, st = os.waitpid(pid, 0)
print("child bad fork:", os.waitstatus_to_exitcode(st) != 0)
sys.exit(0)
