"""Issue 15's device evidence: fusion compile evidence (kernels joined to source, compile ids,
tlparse), cold / warm / fresh-process / mega-cache latency; recompiles with the trace.

Run: python -m scripts.evidence.compile_evidence [cuda|cpu] [fusion|recompiles|all] [OUT_DIR]"""

import json
import shutil
import sys
import time
import zipfile
from pathlib import Path

import pandas as pd

from benchmarks.harness import Bench, Finished
from runtime_lab.compiler import frames as cf
from runtime_lab.registry import EXPERIMENTS
from runtime_lab.spec import build_spec

pd.set_option("display.width", 250, "display.max_columns", 20, "display.max_colwidth", 70)
device = sys.argv[1] if len(sys.argv) > 1 else "cuda"
which = sys.argv[2] if len(sys.argv) > 2 else "all"
out = Path(sys.argv[3]) if len(sys.argv) > 3 else None
FUSION_MODES = "eager,inductor,inductor-reduce-overhead,inductor-max-autotune-no-cudagraphs"
if device == "cuda":
    FUSION_MODES += ",cuda-graph-inductor"


def keep(bench: Bench, finished: Finished, name: str, logs: bool = False) -> None:
    """The run JSON (and, asked, the job's compile traces) under OUT, for fixtures and docs."""
    if out is None:
        return
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(finished.document(), default=str))
    for path in Path(bench.data_dir, "compile").glob("*.log") if logs else ():
        shutil.copy(path, out / path.name)


def evidence_of(name: str, found) -> None:
    if found is None:
        print(f"  {name}: no evidence")
        return
    size = Path(found.report_file).stat().st_size if found.report_file else 0
    entries = zipfile.ZipFile(found.report_file).namelist() if found.report_file else []
    print(f"  {name}: report {size} bytes, {len(entries)} files, note {found.note!r}")
    print(f"    compile ids: {[(c.compile_id, c.status, c.guard_count) for c in found.compiles]}")
    for b in found.graph_breaks:
        print(f"    break {b.gb_id} at {b.user_line}: {b.reason}")


def timed(bench: Bench, spec) -> Finished:
    start = time.perf_counter()
    finished = bench.run(spec)
    job = finished.job
    print(
        f"{spec.label[:60]}: {job.state} in {time.perf_counter() - start:.1f} s {job.error or ''}"
    )
    return finished


def fusion(bench: Bench, shape: str) -> None:
    options = {"modes": FUSION_MODES, "fresh_process": True, "mega_cache": True}
    finished = timed(bench, build_spec("fusion", shape, device=device, options=options))
    keep(bench, finished, f"fusion-{shape}", logs=True)
    result = finished.result
    if result is None:
        return
    frame = cf.kernel_sources((m.mode, m.compile_evidence, m.kernels) for m in result.modes)
    print(frame.drop(columns=["lowered to"]).to_string())
    print(frame[["mode", "kernel", "lowered to"]].to_string())
    for m in result.modes:
        evidence_of(m.mode, m.compile_evidence)
        if m.cudagraph_skip is not None or m.mode == "inductor-reduce-overhead":
            print(f"    cudagraph skip: {m.cudagraph_skip!r}")
    for m in result.modes:
        for c in m.compile:
            first = c.first_call_s if c.first_call_s is None else round(c.first_call_s, 3)
            print(
                f"  latency {m.mode:<10} {c.scenario:<13} {first} s, fx hits {c.fx_cache_hits} "
                f"misses {c.fx_cache_misses}, bytes {c.artifact_bytes}: {c.detail}"
            )


def recompiles(bench: Bench, stance: str = "default", cudagraphs: bool = False) -> None:
    modes = "dynamic=False,dynamic=None,dynamic=True,mark_dynamic,maybe_mark_dynamic,mark_unbacked"
    options = {
        "shapes": "512x512,1024x1024,2048x2048,1024x1024,1x512",
        "modes": modes,
        "stance": stance,
        "cudagraphs": cudagraphs,
        "bucket": "off",
    }
    finished = timed(bench, build_spec("recompiles", "512x512", device=device, options=options))
    keep(bench, finished, f"recompiles-{stance}")
    result = finished.result
    if result is None:
        return
    for m in result.modes:
        print(f"  {m.mode}: {[(c.index, c.event, c.compile_id) for c in m.calls]} {m.error or ''}")
        for c in m.calls:
            if c.reason and stance != "default":
                print(f"    call {c.index}: {c.reason[:160]}")
        if m.pool_bytes is not None or m.cudagraph_note:
            print(f"    pool_bytes {m.pool_bytes}, note {m.cudagraph_note!r}")
        for c in m.calls:
            if c.cudagraph:
                reason = c.cudagraph_reason or ""
                print(f"    call {c.index} {c.shape}: {c.cudagraph} id {c.cudagraph_id} {reason}")
        if stance == "default":
            evidence_of(m.mode, m.compile_evidence)
    if result.graph_break is not None and stance == "default":
        evidence_of("graph-break", result.graph_break.compile_evidence)
    print("  notes:", result.notes)


def main() -> None:
    print("options:", sorted(EXPERIMENTS["recompiles"].options), flush=True)
    with Bench(device) as bench:
        if which in ("fusion", "all"):
            fusion(bench, "256x256")
            fusion(bench, "16384x16384" if device == "cuda" else "1024x1024")
        if which in ("recompiles", "all"):
            recompiles(bench, cudagraphs=device == "cuda")
            recompiles(bench, "eager_on_recompile")
            recompiles(bench, "fail_on_recompile")


if __name__ == "__main__":
    main()
