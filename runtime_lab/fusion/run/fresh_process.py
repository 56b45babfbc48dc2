"""Fusion's compiles in fresh interpreters: a cold one, and the mega-cache's save then load."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import torch

from runtime_lab.fusion.result import CompileLatency
from runtime_lab.fusion.run.modes import INDUCTOR_MODES
from runtime_lab.lab import child
from runtime_lab.spec import RunSpec

CHILD = "runtime_lab.fusion.run.fresh_child"
FRESH, MEGA = "fresh-process", "mega-cache"
API = ("save_cache_artifacts", "load_cache_artifacts")  # torch.compiler, torch ≥ 2.7
TIMEOUT_S = 600


def _process(args: dict, caches: Path, role: str) -> tuple[dict, str | None]:
    """One fresh interpreter with its own empty cache dirs: its document, or why it failed."""
    env = {
        "TORCHINDUCTOR_CACHE_DIR": str(caches / "inductor"),
        "TRITON_CACHE_DIR": str(caches / "triton"),
    }
    doc, why = child.run_module(CHILD, args, TIMEOUT_S, env)
    return (doc, None) if doc is not None else ({}, f"{role}: {why}")


def _args(mode: str, spec: RunSpec, device: torch.device, role: str, path: str = "") -> dict:
    return {
        "device": str(device),
        "shape": list(spec.shape),
        "dtype": spec.dtype,
        "mode": INDUCTOR_MODES[mode],
        "role": role,
        "path": path,
    }


def fresh_process_latency(mode: str, spec: RunSpec, device: torch.device) -> CompileLatency:
    """Import + device init + cold compile + first call, in a new interpreter with empty caches."""
    with tempfile.TemporaryDirectory(prefix="runtime-lab-fresh-") as root:
        start = time.perf_counter()
        phases, error = _process(_args(mode, spec, device, "fresh"), Path(root), "fresh process")
        total = time.perf_counter() - start
    if error:
        return CompileLatency(FRESH, total, detail=f"failed: {error}")
    detail = (
        f"process start to exit {total:.1f} s: import {phases['import_s']:.1f} s, "
        f"{isa_phase(phases)}device init {phases['init_s']:.1f} s, compile + first call "
        f"{phases['compile_s']:.1f} s"
    )
    return CompileLatency(FRESH, total, detail=detail, **_counters(phases))


def _counters(phases: dict) -> dict:
    """A child's compiles and cache hits and misses, as CompileLatency's fields."""
    names = {"fx_hits": "fx_cache_hits", "fx_misses": "fx_cache_misses"}
    names |= {"aot_hits": "aot_cache_hits", "aot_misses": "aot_cache_misses"}
    names |= {"compiles": "compiles"}
    return {field: phases[key] for key, field in names.items() if key in phases}


def supported() -> bool:
    return all(hasattr(torch.compiler, name) for name in API)


def mega_cache_latency(mode: str, spec: RunSpec, device: torch.device) -> CompileLatency:
    """Process A compiles with empty caches and saves the artefacts; process B, another fresh
    interpreter with other empty cache dirs, loads them and compiles: does it hit the cache?"""
    if not supported():
        detail = (
            f"needs torch ≥ 2.7 (torch.compiler.{' / '.join(API)}); this is {torch.__version__}"
        )
        return CompileLatency(MEGA, None, detail=detail)
    with tempfile.TemporaryDirectory(prefix="runtime-lab-mega-") as root:
        path = str(Path(root) / "artifacts.bin")
        start = time.perf_counter()
        save = _args(mode, spec, device, "save", path)
        saved, error = _process(save, Path(root) / "a", "process A (save)")
        if error:
            return CompileLatency(MEGA, time.perf_counter() - start, detail=f"failed: {error}")
        if not saved["bytes"]:
            detail = "failed: process A saved no artefacts (save_cache_artifacts() gave None)"
            return CompileLatency(MEGA, time.perf_counter() - start, detail=detail)
        start = time.perf_counter()
        load = _args(mode, spec, device, "load", path)
        loaded, error = _process(load, Path(root) / "b", "process B (load)")
        total = time.perf_counter() - start
    if error:
        detail = f"failed: {error}"
        return CompileLatency(MEGA, total, artifact_bytes=saved["bytes"], detail=detail)
    return CompileLatency(
        scenario=MEGA,
        first_call_s=loaded["load_s"] + loaded["compile_s"],
        dynamo_s=loaded["dynamo_s"],
        aot_s=loaded["aot_s"],
        inductor_s=loaded["inductor_s"],
        codegen_s=loaded["codegen_s"],
        triton_s=loaded["triton_s"],
        **_counters(loaded),
        artifact_bytes=saved["bytes"],
        detail=_detail(saved, loaded, total),
    )


def isa_phase(phases: dict) -> str:
    """The CPU's vector-ISA check, apart from the compile (lab/vec_isa.py): a cold compile on a
    machine that ran one before finds its answer on disk; the first on a machine pays it."""
    isa_s = phases.get("isa_s")
    if isa_s is None:  # a GPU device, or a child of an older lab
        return ""
    return f"CPU vector-ISA check {isa_s:.1f} s (once per machine, apart from the compile), "


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
        f"import {loaded['import_s']:.1f} s, {isa_phase(loaded)}device init "
        f"{loaded['init_s']:.1f} s, "
        f"load_cache_artifacts {loaded['load_s']:.2f} s, compile + first call "
        f"{loaded['compile_s']:.1f} s; {verdict}. Artefact {saved['bytes']} bytes from process "
        f"A ({_kinds(saved['saved'])}); loaded {_kinds(loaded.get('loaded', {}))}. First call "
        "here = load + compile + first call (phases: B's compile; 'other' includes the load)"
    )
