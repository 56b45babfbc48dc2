"""A fresh interpreter that compiles the pointwise workload once: cold, or saving / loading caches.

Roles: "fresh" (cold compile with empty caches), "save" (then torch.compiler.save_cache_artifacts
to a file), "load" (load_cache_artifacts from that file first). The parent (run_fresh) gives each
process its own empty cache dirs; this module times its own import of torch, so torch is imported
inside main, after the clock starts."""

from __future__ import annotations

import time
from typing import Any

from runtime_lab.lab import child

# get_compilation_metrics() fields, cumulative and nested: dynamo ⊇ aot ⊇ inductor ⊇ …
PHASE_FIELDS = {
    "dynamo": "dynamo_cumulative_compile_time_us",
    "aot": "aot_autograd_cumulative_compile_time_us",
    "inductor": "inductor_cumulative_compile_time_us",
    "codegen": "inductor_code_gen_cumulative_compile_time_us",
    "triton": "triton_compile_time_us",
}


def _kinds(info: Any) -> dict[str, int]:
    """Artefacts per kind: torch 2.7 lists them as *_artifacts fields, later ones as a dict."""
    found = getattr(info, "artifacts", None)
    if found is None:
        suffix = "_artifacts"
        found = {k[: -len(suffix)]: v for k, v in vars(info).items() if k.endswith(suffix)}
    return {k: len(v) for k, v in found.items() if v}


def _sync(torch, device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _phases() -> dict[str, Any]:
    """Phase seconds and cache counters of the compiles this process ran."""
    from torch._dynamo.utils import counters, get_compilation_metrics

    records = [m for m in get_compilation_metrics() if not getattr(m, "is_runtime", False)]
    found: dict[str, Any] = {}
    for phase, field in PHASE_FIELDS.items():
        values = [v for m in records if (v := getattr(m, field, None)) is not None]
        found[f"{phase}_s"] = sum(values) / 1e6 if values else None
    return found | {
        "compiles": len(records),
        "fx_hits": counters["inductor"]["fxgraph_cache_hit"],
        "fx_misses": counters["inductor"]["fxgraph_cache_miss"],
        "aot_hits": counters["aot_autograd"]["autograd_cache_hit"],
        "aot_misses": counters["aot_autograd"]["autograd_cache_miss"],
    }


def main(args: dict) -> dict:
    """args: device, shape (list), dtype, mode (torch.compile's, None: default), role, path."""
    t0 = time.perf_counter()
    import torch
    import torch.nn.functional as F

    t1 = time.perf_counter()
    from runtime_lab.lab import vec_isa  # no torch of its own: nothing for the phases to time

    isa_s = vec_isa.probe(args["device"])  # a fact of the machine: its own phase, not the compile
    checked = time.perf_counter()
    device = torch.device(args["device"])
    x = torch.randn(args["shape"], device=device, dtype=getattr(torch, args["dtype"]))
    y = torch.randn_like(x)
    _sync(torch, device)
    t2 = time.perf_counter()
    role, found = args["role"], {}
    if role == "load":
        with open(args["path"], "rb") as f:
            info = torch.compiler.load_cache_artifacts(f.read())
        found["loaded"] = _kinds(info) if info is not None else {}
    t3 = time.perf_counter()
    # the workload written out, as the worker's pointwise is: importing the lab's would add its
    # modules to what this process times
    compiled = torch.compile(lambda a, b: F.silu(a + b) * (a - b), mode=args["mode"])
    compiled(x, y)
    _sync(torch, device)
    t4 = time.perf_counter()
    found |= {"import_s": t1 - t0, "isa_s": isa_s, "init_s": t2 - checked, "compile_s": t4 - t3}
    if role == "fresh":  # its cache counters say what its empty folders gave it (issue 49)
        return found | _phases()
    if role == "save":
        saved = torch.compiler.save_cache_artifacts()
        if saved is not None:
            with open(args["path"], "wb") as f:
                f.write(saved[0])
        found["bytes"], found["saved"] = (len(saved[0]), _kinds(saved[1])) if saved else (0, {})
    return found | _phases() | {"load_s": t3 - t2}


if __name__ == "__main__":
    child.serve(main, errors_as_json=False)  # a crash: the parent shows its last stderr line
