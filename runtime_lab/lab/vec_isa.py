"""Inductor's check of the CPU's vector instructions, paid once per machine, not per cold compile."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from runtime_lab.lab.cache_env import cache_dirs, machine_cache

ANSWER = "answer.json"  # in the machine's cache: what the last full check found, and for what


def probe(device: object) -> float | None:
    """Before a CPU compile in a process whose caches are empty on purpose: Inductor's first CPU
    compile in a process builds and loads a test program per vector ISA the CPU claims (AVX2,
    AVX-512, …) into the cache dir, to learn which the compiler can use. That is a fact of the
    machine, kept on disk with the default cache dir, so a user's cold compile does not pay it;
    with empty cache dirs it did, inside the compile (2-core CPU, g++ 12: six builds, 6.7 s,
    against a 1 s kernel build). So the check runs here, against the machine's cache. Inductor
    keeps the answer for the rest of the process (a forked worker inherits its zygote's), so a
    second call costs nothing. Returns its seconds; None where the device is not the CPU (GPU
    kernels need no such check).

    Even with its test programs built, each process's check still loads each one in a Python
    process of its own (~0.2 s each: 140 of them in one integration-tier run). Where this
    machine's last full check found that every ISA the CPU claims builds and loads, with the same
    torch, compiler and CPU, Inductor is told so through its own setting (`cpp.vec_isa_ok`) and
    asks nothing; any difference, or a user's own TORCHINDUCTOR_VEC_ISA_OK, means the full check.
    (The setting is part of Inductor's cache key: the first start after the answer is recorded
    compiles once more what the data directory's cache held.) Measured: 1.53 s with the
    programs built but no answer, 0.26 s with it (2-core CPU, torch already imported)."""
    if not str(device).startswith("cpu"):
        return None
    start = time.perf_counter()
    from torch._inductor import config, cpu_vec_isa

    root = machine_cache("vec-isa")
    with cache_dirs(root):  # the check's test programs are kept there
        known = config.cpp.vec_isa_ok is None and _all_known_good(root)
        if known:
            config.cpp.vec_isa_ok = True
        valid = cpu_vec_isa.valid_vec_isa_list()
        cpu_vec_isa.pick_vec_isa()
        if not known and config.cpp.vec_isa_ok is None:
            _record(root, [str(isa) for isa in valid], _claimed())
    return time.perf_counter() - start


def _claimed() -> list[str]:
    """The ISAs the CPU claims (what the list would be if every one built and loaded)."""
    from torch._inductor import config, cpu_vec_isa

    config.cpp.vec_isa_ok = True
    try:
        return [str(isa) for isa in cpu_vec_isa.valid_vec_isa_list.__wrapped__()]
    finally:
        config.cpp.vec_isa_ok = None


def _fingerprint() -> dict[str, Any] | None:
    """What the answer depends on: torch, Python, the C++ compiler (path, size, time) and the
    CPU's flags; None where any of it cannot be read (then the full check runs)."""
    try:
        import torch
        from torch._inductor import cpp_builder

        compiler = shutil.which(cpp_builder.get_cpp_compiler()) or ""
        stat = os.stat(compiler)
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            flags = sorted({line for line in fh if line.startswith("flags")})
    except (OSError, ImportError, AttributeError, RuntimeError):
        return None
    return {
        "torch": torch.__version__,
        "python": sys.executable,
        "compiler": [compiler, stat.st_size, stat.st_mtime],
        "cpu_flags": hashlib.sha256("".join(flags).encode()).hexdigest(),
    }


def _all_known_good(root: Path) -> bool:
    try:
        answer = json.loads((root / ANSWER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    found = _fingerprint()
    return (
        found is not None and answer.get("fingerprint") == found and answer.get("all_good") is True
    )


def _record(root: Path, valid: list[str], claimed: list[str]) -> None:
    found = _fingerprint()
    if found is None:
        return
    answer = {"fingerprint": found, "valid": valid, "claimed": claimed}
    answer["all_good"] = bool(valid) and valid == claimed
    partial = root / f"{ANSWER}.{os.getpid()}"
    try:  # whole or not at all: another process may be reading it
        partial.write_text(json.dumps(answer), encoding="utf-8")
        os.replace(partial, root / ANSWER)
    except OSError:
        partial.unlink(missing_ok=True)
