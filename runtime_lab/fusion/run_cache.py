"""Fusion's mega-cache scenario: portable compile caches saved by one process, loaded by another."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

from runtime_lab.fusion.modes import INDUCTOR_MODES
from runtime_lab.fusion.result import CompileLatency
from runtime_lab.spec import RunSpec

SCENARIO = "mega-cache"
API = ("save_cache_artifacts", "load_cache_artifacts")  # torch.compiler, torch ≥ 2.7
TIMEOUT_S = 600

# argv: device shape dtype mode role ("save" | "load") artefact-path. One JSON line on stdout.
MEGA_SCRIPT = """
import json, sys, time
t0 = time.perf_counter()
import torch, torch.nn.functional as F
t1 = time.perf_counter()
dev = torch.device(sys.argv[1]); shape = tuple(int(d) for d in sys.argv[2].split("x"))
x = torch.randn(shape, device=dev, dtype=getattr(torch, sys.argv[3])); y = torch.randn_like(x)
if dev.type == "cuda": torch.cuda.synchronize(dev)
t2 = time.perf_counter()
role, path = sys.argv[5], sys.argv[6]

def kinds(info):
    # torch 2.7 lists keys per type as *_artifacts fields; later ones in an artifacts dict
    found = getattr(info, "artifacts", None)
    if found is None:
        found = {k[: -len("_artifacts")]: v for k, v in vars(info).items() if k.endswith("_artifacts")}
    return {k: len(v) for k, v in found.items() if v}

out = {}
if role == "load":
    with open(path, "rb") as f:
        info = torch.compiler.load_cache_artifacts(f.read())
    out["loaded"] = kinds(info) if info is not None else {}
t3 = time.perf_counter()
mode = None if sys.argv[4] == "default" else sys.argv[4]
f = torch.compile(lambda a, b: F.silu(a + b) * (a - b), mode=mode)
f(x, y)
if dev.type == "cuda": torch.cuda.synchronize(dev)
t4 = time.perf_counter()
if role == "save":
    saved = torch.compiler.save_cache_artifacts()
    if saved is not None:
        with open(path, "wb") as f:
            f.write(saved[0])
    out["bytes"], out["saved"] = (len(saved[0]), kinds(saved[1])) if saved else (0, {})
from torch._dynamo.utils import counters, get_compilation_metrics
records = [m for m in get_compilation_metrics() if not getattr(m, "is_runtime", False)]
fields = {"dynamo": "dynamo_cumulative_compile_time_us", "aot": "aot_autograd_cumulative_compile_time_us",
          "inductor": "inductor_cumulative_compile_time_us",
          "codegen": "inductor_code_gen_cumulative_compile_time_us", "triton": "triton_compile_time_us"}
for phase, field in fields.items():
    values = [getattr(m, field, None) for m in records]
    values = [v for v in values if v is not None]
    out[phase + "_s"] = sum(values) / 1e6 if values else None
out |= {
    "import_s": t1 - t0, "init_s": t2 - t1, "load_s": t3 - t2, "compile_s": t4 - t3,
    "compiles": len(records),
    "fx_hits": counters["inductor"]["fxgraph_cache_hit"],
    "fx_misses": counters["inductor"]["fxgraph_cache_miss"],
    "aot_hits": counters["aot_autograd"]["autograd_cache_hit"],
    "aot_misses": counters["aot_autograd"]["autograd_cache_miss"],
}
print(json.dumps(out))
"""


def supported() -> bool:
    return all(hasattr(torch.compiler, name) for name in API)


def mega_cache_latency(mode: str, spec: RunSpec, device: torch.device) -> CompileLatency:
    """Process A compiles with empty caches and saves the artefacts; process B, another fresh
    interpreter with other empty cache dirs, loads them and compiles: does it hit the cache?"""
    if not supported():
        detail = (
            f"needs torch ≥ 2.7 (torch.compiler.{' / '.join(API)}); this is {torch.__version__}"
        )
        return CompileLatency(SCENARIO, None, detail=detail)
    args = [str(device), spec.shape_text, spec.dtype, INDUCTOR_MODES[mode] or "default"]
    with tempfile.TemporaryDirectory(prefix="runtime-lab-mega-") as root:
        path = str(Path(root) / "artifacts.bin")
        start = time.perf_counter()
        saved, error = _process(args + ["save", path], Path(root) / "a")
        if error:
            return CompileLatency(SCENARIO, time.perf_counter() - start, detail=f"failed: {error}")
        if not saved["bytes"]:
            detail = "failed: process A saved no artefacts (save_cache_artifacts() gave None)"
            return CompileLatency(SCENARIO, time.perf_counter() - start, detail=detail)
        start = time.perf_counter()
        loaded, error = _process(args + ["load", path], Path(root) / "b")
        total = time.perf_counter() - start
    if error:
        detail = f"failed: {error}"
        return CompileLatency(SCENARIO, total, artifact_bytes=saved["bytes"], detail=detail)
    return CompileLatency(
        scenario=SCENARIO,
        first_call_s=loaded["load_s"] + loaded["compile_s"],
        dynamo_s=loaded["dynamo_s"],
        aot_s=loaded["aot_s"],
        inductor_s=loaded["inductor_s"],
        codegen_s=loaded["codegen_s"],
        triton_s=loaded["triton_s"],
        fx_cache_hits=loaded["fx_hits"],
        fx_cache_misses=loaded["fx_misses"],
        aot_cache_hits=loaded["aot_hits"],
        aot_cache_misses=loaded["aot_misses"],
        compiles=loaded["compiles"],
        artifact_bytes=saved["bytes"],
        detail=_detail(saved, loaded, total),
    )


def _process(args: list[str], caches: Path) -> tuple[dict, str | None]:
    """One fresh interpreter with its own empty cache dirs: its JSON line, or why it failed."""
    role = "process A (save)" if "save" in args else "process B (load)"
    env = {
        **os.environ,
        "TORCHINDUCTOR_CACHE_DIR": str(caches / "inductor"),
        "TRITON_CACHE_DIR": str(caches / "triton"),
    }
    try:
        done = subprocess.run(
            [sys.executable, "-c", MEGA_SCRIPT, *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        return {}, f"{role} ran past {TIMEOUT_S} s"
    if done.returncode != 0:
        tail = (done.stderr or "").strip().splitlines()[-1:] or ["no output"]
        return {}, f"{role}: {tail[0][:300]}"
    try:
        return json.loads(done.stdout.strip().splitlines()[-1]), None
    except (IndexError, ValueError):
        return {}, f"{role} printed no result"


def _kinds(counts: dict[str, int]) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in counts.items()) or "nothing"


def _detail(saved: dict, loaded: dict, total: float) -> str:
    hits, misses = loaded["fx_hits"], loaded["fx_misses"]
    if hits:
        verdict = f"FX graph cache hit (hits {hits}, misses {misses})"
    else:
        verdict = (
            f"process B did NOT hit the FX graph cache (hits 0, misses {misses}): it "
            "compiled from scratch despite the loaded artefacts"
        )
    return (
        f"process B (fresh interpreter, its own empty cache dirs) start to exit {total:.1f} s: "
        f"import {loaded['import_s']:.1f} s, device init {loaded['init_s']:.1f} s, "
        f"load_cache_artifacts {loaded['load_s']:.2f} s, compile + first call "
        f"{loaded['compile_s']:.1f} s; {verdict}. Artefact {saved['bytes']} bytes from process "
        f"A ({_kinds(saved['saved'])}); loaded {_kinds(loaded.get('loaded', {}))}. First call "
        "here = load + compile + first call (phases: B's compile; 'other' includes the load)"
    )
