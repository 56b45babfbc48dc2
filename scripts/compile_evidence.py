"""Issue 15's device evidence: fusion compile evidence (kernels joined to source, compile ids,
tlparse), cold / warm / fresh-process / mega-cache latency; recompiles with the trace.

Run: python3 scripts/compile_evidence.py [cuda|cpu] [fusion|recompiles|all] [OUT_DIR]"""

import json
import shutil
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pandas as pd

from runtime_lab.compiler import frames as cf
from runtime_lab.registry import EXPERIMENTS, result_from_record
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

pd.set_option("display.width", 250, "display.max_columns", 20, "display.max_colwidth", 70)
device = sys.argv[1] if len(sys.argv) > 1 else "cuda"
which = sys.argv[2] if len(sys.argv) > 2 else "all"
out = Path(sys.argv[3]) if len(sys.argv) > 3 else None
FUSION_MODES = "eager,inductor,inductor-reduce-overhead,inductor-max-autotune-no-cudagraphs"
if device == "cuda":
    FUSION_MODES += ",cuda-graph-inductor"


def keep(run: dict, name: str, logs: bool = False) -> None:
    """The run JSON (and, asked, the job's compile traces) under OUT, for fixtures and docs."""
    if out is None:
        return
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(run, default=str))
    for path in Path(jobs.data_dir, "compile").glob("*.log") if logs else ():
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


def fusion(shape: str) -> None:
    options = {"modes": FUSION_MODES, "fresh_process": True, "mega_cache": True}
    spec = build_spec("fusion", shape, device=device, options=options)
    start = time.perf_counter()
    job = jobs.wait(jobs.submit(spec), 900)
    print(
        f"fusion {shape} {device}: {job.state} in {time.perf_counter() - start:.1f} s {job.error or ''}"
    )
    run = job.as_run()
    keep(run, f"fusion-{shape}", logs=True)
    result = result_from_record("fusion", run["result"])
    frame = cf.kernel_sources((m.mode, m.compile_evidence, m.kernels) for m in result.modes)
    print(frame.drop(columns=["lowered to"]).to_string())
    print(frame[["mode", "kernel", "lowered to"]].to_string())
    for m in result.modes:
        evidence_of(m.mode, m.compile_evidence)
        if m.cudagraph_skip is not None or m.mode == "inductor-reduce-overhead":
            print(f"    cudagraph skip: {m.cudagraph_skip!r}")
    for m in result.modes:
        for c in m.compile:
            print(
                f"  latency {m.mode:<10} {c.scenario:<13} {c.first_call_s if c.first_call_s is None else round(c.first_call_s, 3)} s, "
                f"fx hits {c.fx_cache_hits} misses {c.fx_cache_misses}, bytes {c.artifact_bytes}: {c.detail}"
            )


def recompiles(stance: str = "default", cudagraphs: bool = False) -> None:
    modes = "dynamic=False,dynamic=None,dynamic=True,mark_dynamic,maybe_mark_dynamic,mark_unbacked"
    options = {
        "shapes": "512x512,1024x1024,2048x2048,1024x1024,1x512",
        "modes": modes,
        "stance": stance,
        "cudagraphs": cudagraphs,
        "bucket": "off",
    }
    spec = build_spec("recompiles", "512x512", device=device, options=options)
    start = time.perf_counter()
    job = jobs.wait(jobs.submit(spec), 900)
    took = time.perf_counter() - start
    print(f"recompiles {device} stance={stance}: {job.state} in {took:.1f} s {job.error or ''}")
    run = job.as_run()
    keep(run, f"recompiles-{stance}")
    result = result_from_record("recompiles", run["result"])
    for m in result.modes:
        calls = [(c.index, c.event, c.compile_id) for c in m.calls]
        print(f"  {m.mode}: {calls} {m.error or ''}")
        for c in m.calls:
            if c.reason and stance != "default":
                print(f"    call {c.index}: {c.reason[:160]}")
        if m.pool_bytes is not None or m.cudagraph_note:
            print(f"    pool_bytes {m.pool_bytes}, note {m.cudagraph_note!r}")
        for c in m.calls:
            if c.cudagraph:
                print(
                    f"    call {c.index} {c.shape}: {c.cudagraph} id {c.cudagraph_id} {c.cudagraph_reason or ''}"
                )
        if stance == "default":
            evidence_of(m.mode, m.compile_evidence)
    if result.graph_break is not None and stance == "default":
        evidence_of("graph-break", result.graph_break.compile_evidence)
    print("  notes:", result.notes)


jobs = JobManager(data_dir=tempfile.mkdtemp(prefix="compile-evidence-"), timeout_s=900)
try:
    print("options:", sorted(EXPERIMENTS["recompiles"].options), flush=True)
    if which in ("fusion", "all"):
        fusion("256x256")
        fusion("16384x16384" if device == "cuda" else "1024x1024")
    if which in ("recompiles", "all"):
        recompiles(cudagraphs=device == "cuda")
        recompiles("eager_on_recompile")
        recompiles("fail_on_recompile")
finally:
    jobs.close()
