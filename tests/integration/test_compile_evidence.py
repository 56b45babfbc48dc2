"""Compile evidence: the structured trace read back, kernels joined to source, tlparse reports."""

import json
import logging
import zipfile
from pathlib import Path

import pytest

from runtime_lab.compiler import frames as cf
from runtime_lab.compiler import log as compile_log
from runtime_lab.compiler import provenance
from runtime_lab.compiler import tlparse as tlparse_report
from runtime_lab.compiler.log import CompileEvidence
from runtime_lab.registry import result_from_record
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

FIXTURES = Path(__file__).parents[1] / "fixtures" / "compile"


def _line(meta: dict, payload: str = "") -> str:
    head = "V1203 11:50:01.000000 1 torch/_dynamo/x.py:1] " + json.dumps(meta)
    return head + "".join(f"\n\t{p}" for p in payload.split("\n")) if payload else head


def _place(frame: int, compile_: int, attempt: int = 0) -> dict:
    return {"frame_id": frame, "frame_compile_id": compile_, "attempt": attempt}


TRITON_CODE = """# kernel path: /tmp/x.py
# Topologically Sorted Source Nodes: [add, silu, sub, mul], Original ATen: [aten.add, aten.silu, aten.sub, aten.mul]
# Source node to ATen node mapping:
#   add => add
triton_poi_fused_add_mul_silu_sub_0 = async_compile.triton('triton_poi_fused_add_mul_silu_sub_0', '''
'''
"""
DYNAMO_GRAPH = """class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[8]", L_y_: "f32[8]"):
        # File: /work/runtime_lab/lab/workload.py:10 in pointwise, code: return F.silu(x + y) * (x - y)
        add: "f32[8]" = l_x_ + l_y_
        silu: "f32[8]" = torch.nn.functional.silu(add);  add = None
        sub: "f32[8]" = l_x_ - l_y_
        mul: "f32[8]" = silu * sub;  silu = sub = None"""
BREAK = """Graph break in user code at /work/runtime_lab/recompiles/run/breaks.py:27
Graph Break Reason: Encountered graph break when attempting to trace CALL:

Unsupported Tensor.item() call with capture_scalar_outputs=False
  Explanation: Dynamo does not support tracing `Tensor.item()`.
  Hint: Set `torch._dynamo.config.capture_scalar_outputs = True`.

 For more details about this graph break, please visit: https://example.org/gb/gb0124.html

User code traceback:
  File "/work/runtime_lab/recompiles/run/breaks.py", line 27, in item_branch
    if not s.isfinite().all().item():

Traceback (most recent call last):
  File "/torch/_dynamo/symbolic_convert.py", line 1, in wrapper"""


def _synthetic(tmp_path) -> Path:
    metrics0 = {"compile_id": "0/0", "guard_count": 11, "dynamo_cumulative_compile_time_us": 2e6}
    metrics1 = {
        "compile_id": "0/1",
        "guard_count": 12,
        "recompile_reason": "0/0: tensor 'x' size mismatch at index 0. expected 64, actual 128",
        "num_graph_breaks": 1,
    }
    lines = [
        _line({"dynamo_start": {}, **_place(0, 0)}),
        _line({"dynamo_output_graph": {}, **_place(0, 0)}, DYNAMO_GRAPH),
        _line({"inductor_output_code": {}, **_place(0, 0)}, TRITON_CODE),
        _line({"dynamo_cpp_guards_str": {}, **_place(0, 0)}, "TREE_GUARD_MANAGER:\n+- A  # x.py:1"),
        _line({"compilation_metrics": metrics0, **_place(0, 0)}),
        _line({"dynamo_output_graph": {}, **_place(0, 1, 1)}, DYNAMO_GRAPH),
        _line({"artifact": {"name": "dynamo_graph_break_reason"}, **_place(0, 1, 1)}, BREAK),
        _line({"compilation_metrics": metrics1, **_place(0, 1, 1)}),
        _line({"compilation_metrics": {"compile_id": "1/0", "fail_type": "Boom"}, **_place(1, 0)}),
        "not a record at all",
    ]
    path = tmp_path / "trace.log"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_compile_entries_from_a_trace(tmp_path):
    records = compile_log.read(_synthetic(tmp_path))
    entries = {e.compile_id: e for e in compile_log.compile_entries(records)}
    assert list(entries) == ["0/0", "0/1", "1/0"]
    first, second, failed = entries["0/0"], entries["0/1"], entries["1/0"]
    assert (first.status, first.guard_count, first.dynamo_s) == ("compiled", 11, 2.0)
    assert first.guards == "TREE_GUARD_MANAGER:\n+- A"  # the source comment is dropped
    assert first.report_dir == "-_0_0_0"
    assert second.status == "graph break" and second.report_dir == "-_0_1_1"
    assert "size mismatch at index 0" in second.recompile_reason
    assert failed.status == "failed" and failed.fail_reason == "Boom"


def test_graph_break_site_names_the_user_line_and_its_id(tmp_path):
    sites = compile_log.graph_break_sites(compile_log.read(_synthetic(tmp_path)))
    assert len(sites) == 1
    site = sites[0]
    assert site.user_line == "breaks.py:27  if not s.isfinite().all().item():"
    assert site.reason.startswith("Unsupported Tensor.item()")
    assert site.hint.startswith("Set `torch._dynamo.config.capture_scalar_outputs")
    assert site.gb_id == "gb0124" and site.url.endswith("gb0124.html")
    assert site.compile_id == "0/1"
    assert compile_log.graph_break_ids("no id here") == ()


def test_triton_kernel_joined_through_the_generated_code_comments(tmp_path):
    kernels = provenance.kernel_sources(compile_log.read(_synthetic(tmp_path)))
    assert len(kernels) == 1
    k = kernels[0]
    assert k.kernel == "triton_poi_fused_add_mul_silu_sub_0"
    assert k.aten_ops == ("aten.add", "aten.silu", "aten.sub", "aten.mul")
    assert k.origin == "generated code comments"
    assert k.source_lines == ("workload.py:10  return F.silu(x + y) * (x - y)",)


@pytest.mark.parametrize(
    ("expression", "name"),
    [
        ("torch.ops.aten.add.Tensor(arg0_1, arg1_1)", "aten.add"),
        ("torch.nn.functional.silu(add)", "aten.silu"),
        ("l_x_ - l_y_", "aten.sub"),
        ("silu * sub", "aten.mul"),
        ("x.sum(1)", "aten.sum"),
        ("l_x_", None),
    ],
)
def test_aten_names(expression, name):
    assert provenance.aten_name(expression) == name


def test_the_kernel_table_joins_profiled_time():
    from runtime_lab.compiler.log import KernelSource
    from runtime_lab.results import KernelRow

    source = KernelSource(
        "0/0", "cpp_fused_add_mul_silu_sub_0", ("aten.add",), (), ("w.py:1  x",), "p"
    )
    found = CompileEvidence(kernels=(source,))
    rows = (KernelRow("graph_0_cpp_fused_add_mul_silu_sub_0", 1.0, 12.5, 12.5),)
    frame = cf.kernel_sources([("inductor", found, rows), ("dynamo-eager", None, ())])
    assert frame.to_dict("records")[0]["device or CPU µs per call"] == 12.5
    unmatched = cf.kernel_sources([("inductor", found, (KernelRow("other", 1.0, 3.0, 3.0),))])
    assert unmatched["launches per call"].isna().all()  # no join is shown as none, not a zero


def test_missing_tlparse_is_said(monkeypatch, tmp_path):
    monkeypatch.setattr(tlparse_report, "binary", lambda: None)
    path, note = tlparse_report.build(_synthetic(tmp_path), tmp_path / "r.zip")
    assert path is None and "not installed" in note


def test_capture_on_cpu_names_the_four_aten_ops_and_builds_a_report(data_dir):
    import torch
    from torch._logging import _internal as logs

    from runtime_lab.lab import compile_tools as ct
    from runtime_lab.lab.compile_trace import capture, evidence
    from runtime_lab.workloads.pointwise.op import pointwise

    level = logs.trace_log.level
    ct.reset()
    fn = torch.compile(ct.own_copy(pointwise, "pointwise_evidence"), dynamic=False)
    with ct.fresh_cache_dirs("cpu"), capture("test") as trace:
        fn(torch.randn(32, 32), torch.randn(32, 32))
        fn(torch.randn(48, 32), torch.randn(48, 32))  # a recompile: two compile ids
    ours = [
        h for h in logs.trace_log.handlers if "runtime-lab-trace" in str(getattr(h, "root_dir", ""))
    ]
    assert ours == [] and logs.trace_log.level == level  # the handler went with the capture
    import torch._inductor.config as inductor_config

    assert inductor_config.trace.provenance_tracking_level == 0  # restored
    found = evidence(trace)
    assert [c.compile_id for c in found.compiles] == ["0/0", "0/1"]
    assert "size mismatch" in found.compiles[1].recompile_reason
    assert found.compiles[0].guards and "TENSOR_MATCH" in found.compiles[0].guards
    fused = [k for k in found.kernels if k.compile_id == "0/0"]
    assert [k.kernel for k in fused] == ["cpp_fused_add_mul_silu_sub_0"]
    assert fused[0].aten_ops == ("aten.add", "aten.silu", "aten.sub", "aten.mul")
    assert fused[0].origin == "provenance tracking"
    assert fused[0].source_lines == ("op.py:18  return F.silu(x + y) * (x - y)",)
    assert Path(found.trace_file).is_relative_to(data_dir)
    with zipfile.ZipFile(found.report_file) as archive:
        names = set(archive.namelist())
    assert "tlparse/index.html" in names and "raw/" + Path(found.trace_file).name in names
    assert any(n.startswith("tlparse/-_0_1_0/") for n in names)
    ct.reset()


def test_capture_with_nothing_compiled_says_so(data_dir):
    from runtime_lab.lab.compile_trace import capture, evidence

    logging.getLogger("x").info("nothing")
    with capture("idle") as trace:
        pass
    found = evidence(trace)
    assert found.trace_file is None and "nothing compiled" in found.note


@pytest.mark.slow
def test_fusion_job_joins_its_fused_kernel_to_the_source(tmp_path):
    jobs = JobManager(data_dir=tmp_path, timeout_s=600)
    try:
        options = {"modes": "eager,inductor,dynamo-eager", "compile_latency": False}
        spec = build_spec("fusion", "128x128", device="cpu", warmup=2, repeat=5, options=options)
        job = jobs.wait(jobs.submit(spec), 600)
    finally:
        jobs.close()
    assert job.state == "done", job.error
    modes = {m.mode: m for m in result_from_record("fusion", job.as_run()["result"]).modes}
    assert modes["eager"].compile_evidence is None
    found = modes["inductor"].compile_evidence
    frame = cf.kernel_sources([("inductor", found, modes["inductor"].kernels)])
    row = frame.to_dict("records")[0]
    assert row["fuses (ATen)"] == "aten.add, aten.silu, aten.sub, aten.mul"
    assert row["device or CPU µs per call"] > 0 and row["launches per call"] == 1
    assert "op.py:18" in row["user source"]
    assert zipfile.is_zipfile(found.report_file)
    assert modes["dynamo-eager"].compile_evidence.compiles  # Dynamo only: ids, no kernels
    assert modes["dynamo-eager"].compile_evidence.kernels == ()


def _draw(run):
    from runtime_lab import ui

    ui.draw(run)


def test_the_fusion_page_shows_the_joined_kernels_compile_ids_and_the_report(tmp_path):
    from dataclasses import replace

    from fusiondata import result as _result
    from fusiondata import run as _run
    from streamlit.testing.v1 import AppTest

    from runtime_lab.compiler.log import CompileEntry, KernelSource

    report, log = tmp_path / "r.tlparse.zip", tmp_path / "r.log"
    with zipfile.ZipFile(report, "w") as archive:
        archive.writestr("tlparse/index.html", "<html></html>")
    log.write_text("trace")
    kernel = "triton_poi_fused_add_mul_silu_sub_0"
    found = CompileEvidence(
        trace_file=str(log),
        report_file=str(report),
        compiles=(CompileEntry("0/0", "-_0_0_0", "compiled", 11, "TREE_GUARD_MANAGER:\n+- X"),),
        kernels=(KernelSource("0/0", kernel, ("aten.add", "aten.silu"), (), ("w.py:1  y",), "p"),),
        provenance=True,
    )
    result = _result()
    modes = tuple(
        replace(m, compile_evidence=found) if m.mode == "inductor" else m for m in result.modes
    )
    run = _run(replace(result, modes=modes))
    run["env"] = {}
    at = AppTest.from_function(_draw, args=(run,), default_timeout=30)
    at.run()
    assert not at.exception, at.exception
    titles = [m.value for m in at.markdown]
    assert "**Kernels joined to their source (Inductor provenance)**" in titles
    assert "**Compile ids (structured compile trace)**" in titles
    assert "Guards per compile id: inductor" in [e.label for e in at.expander]
    labels = [b.proto.label for b in at.get("download_button")]
    assert "tlparse report: inductor" in labels and "Compile trace: inductor" in labels
    assert any("structured trace" in c.value for c in at.caption)


def test_a_recompiles_job_links_each_call_to_its_compile_id_and_break(tmp_path):
    from runtime_lab.recompiles.report import build as report

    jobs = JobManager(data_dir=tmp_path, timeout_s=600)
    try:
        options = {"shapes": "32x32,64x64,32x32", "modes": "dynamic=False", "backend": "eager"}
        options |= {"bucket": "off"}
        spec = build_spec("recompiles", "32x32", device="cpu", warmup=1, repeat=3, options=options)
        job = jobs.wait(jobs.submit(spec), 600)
    finally:
        jobs.close()
    assert job.state == "done", job.error
    run = job.as_run()
    result = result_from_record("recompiles", run["result"])
    mode = result.modes[0]
    assert [c.compile_id for c in mode.calls] == ["0/0", "0/1", "0/0"]
    ids = {c.compile_id: c for c in mode.compile_evidence.compiles}
    assert set(ids) == {"0/0", "0/1"} and "size mismatch" in ids["0/1"].recompile_reason
    rep = report.build(run, result)
    calls = next(
        t for title, t in rep.tables if title.startswith("Calls")
    )  # "Calls of pointwise …"
    assert list(calls["tlparse_folder"]) == ["-_0_0_0", "-_0_1_0", "-_0_0_0"]
    sites = result.graph_break.compile_evidence.graph_breaks
    assert sites and sites[0].user_line.startswith("breaks.py:") and ".item()" in sites[0].user_line
    gb = sites[0].gb_id  # torch 2.13 names it; an older build names none
    assert gb is None or gb.startswith("gb")


def test_a_recorded_h200_trace_joins_the_triton_kernel(tmp_path):
    """The inductor mode's trace from the H200 (fusion 256², torch 2.11, docs/evidence/gpu.md)."""
    import gzip

    log = tmp_path / "h200.log"
    log.write_bytes(gzip.decompress((FIXTURES / "h200-fusion-inductor-256.log.gz").read_bytes()))
    records = compile_log.read(log)
    (entry,) = compile_log.compile_entries(records)
    assert (entry.compile_id, entry.status, entry.guard_count) == ("0/0", "compiled", 11)
    assert "CUDA" in entry.guards  # the tensor guards name the device
    assert entry.guard_latency_us == 31.91  # Dynamo times its own guard check
    (kernel,) = provenance.kernel_sources(records)
    assert kernel.kernel == "triton_poi_fused_add_mul_silu_sub_0"
    assert kernel.aten_ops == ("aten.add", "aten.silu", "aten.sub", "aten.mul")
    assert kernel.post_grad_ops == (
        "aten.add",
        "aten.neg",
        "aten.exp",
        "aten.div",
        "aten.sub",
        "aten.mul",
    )
    assert kernel.origin == "provenance tracking"
    assert kernel.source_lines == ("workload.py:10  return F.silu(x + y) * (x - y)",)
    # without the provenance artefacts the generated code's own comments still name the ops
    bare = [r for r in records if "provenance" not in r.kind]
    (fallback,) = provenance.kernel_sources(bare)
    assert fallback.aten_ops == kernel.aten_ops and fallback.origin == "generated code comments"
    assert fallback.source_lines == kernel.source_lines  # from the Dynamo graph's comments
