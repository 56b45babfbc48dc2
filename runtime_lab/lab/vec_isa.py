"""Inductor's check of the CPU's vector instructions, paid once per machine, not per cold compile."""

from __future__ import annotations

import time

from runtime_lab.lab.cache_env import cache_dirs, machine_cache


def probe(device: object) -> float | None:
    """Before a CPU compile in a process whose caches are empty on purpose: Inductor's first CPU
    compile in a process builds and loads a test program per vector ISA the CPU claims (AVX2,
    AVX-512, …) into the cache dir, to learn which the compiler can use. That is a fact of the
    machine, kept on disk with the default cache dir, so a user's cold compile does not pay it;
    with empty cache dirs it did, inside the compile (2-core CPU, g++ 12: six builds, 6.7 s,
    against a 1 s kernel build). So the check runs here, against the machine's cache. Inductor
    keeps the answer for the rest of the process (a forked worker inherits its zygote's), so a
    second call costs nothing. Returns its seconds; None where the device is not the CPU (GPU
    kernels need no such check)."""
    if not str(device).startswith("cpu"):
        return None
    start = time.perf_counter()
    from torch._inductor import cpu_vec_isa

    with cache_dirs(machine_cache("vec-isa")):  # the check's test programs are kept there
        cpu_vec_isa.valid_vec_isa_list()
        cpu_vec_isa.pick_vec_isa()
    return time.perf_counter() - start
