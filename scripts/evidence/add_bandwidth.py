"""torch.add(x, y, out=z) bandwidth (2 reads + 1 write) by size and dtype: is the ceiling's size enough?

Run on a CUDA machine: python -m scripts.evidence.add_bandwidth (docs/evidence/gpu.md, issue 12)."""

import torch
from triton.testing import do_bench

for dtype in (torch.float32, torch.bfloat16):
    for total_gib in (1, 3, 6, 12):
        n = total_gib * 2**30 // 3 // torch.empty((), dtype=dtype).element_size()
        x = torch.randn(n, device="cuda", dtype=dtype)
        y, z = torch.randn_like(x), torch.empty_like(x)
        ms = do_bench(lambda x=x, y=y, z=z: torch.add(x, y, out=z), warmup=25, rep=200)
        print(f"add {str(dtype):<15} {total_gib:>2} GiB moved: {3 * x.nbytes / ms / 1e6:8.0f} GB/s")
        del x, y, z
