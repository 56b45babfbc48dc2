"""Where a GPU worker's compiler warm-up goes, after the zygote's imports (cProfile, top calls)."""

import cProfile
import pstats
import sys
import time

began = time.time()
from runtime_lab.runner import zygote  # noqa: E402

zygote.preload()
import torch  # noqa: E402

from runtime_lab.lab import prewarm  # noqa: E402

print(f"preload {time.time() - began:.2f} s", flush=True)
began = time.time()
torch.cuda.init()
print(f"cuda init {time.time() - began:.2f} s", flush=True)
profile = cProfile.Profile()
profile.enable()
print(prewarm.compiler(torch.device("cuda")), flush=True)
profile.disable()
if len(sys.argv) > 1:
    pstats.Stats(profile).sort_stats("cumulative").print_stats(int(sys.argv[1]))
