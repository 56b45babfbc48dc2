"""Exported Chrome traces open in trace tools (distributedInfo, ProfilerStep) and parse as before."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from runtime_lab.lab import profiling
from runtime_lab.streams.run import cuda_parts
from runtime_lab.streams.run import trace as streamtrace

FIXTURES = Path(__file__).parents[1] / "fixtures" / "h200"


def _steps(events):
    return [e for e in events if str(e.get("name", "")).startswith(profiling.STEP_PREFIX)]


def test_profile_calls_writes_rank_and_one_step_per_call(tmp_path):
    x = torch.randn(32, 32)
    trace = tmp_path / "traces" / "mm.json"
    rows = profiling.profile_calls(lambda: torch.mm(x, x), torch.device("cpu"), 3, trace)
    data = json.loads(trace.read_text())
    assert data["distributedInfo"] == {"backend": "none", "rank": 0, "world_size": 1}
    steps = _steps(data["traceEvents"])
    assert sorted(e["name"] for e in steps) == [
        "ProfilerStep#0",
        "ProfilerStep#1",
        "ProfilerStep#2",
    ]
    assert {e["cat"] for e in steps} == {"user_annotation"}
    # the step ranges are not kernels: the per-call counts are what the workload issues
    by_name = {r.name: r for r in rows}
    assert by_name["aten::mm"].calls_per_run == 1.0
    assert not [n for n in by_name if "ProfilerStep" in n]
    assert not list(trace.parent.glob("*.partial"))


def test_export_keeps_the_distributed_info_torch_wrote(tmp_path):
    class Prof:  # what torch writes under torch.distributed: its info is the right one
        def export_chrome_trace(self, path):
            Path(path).write_text(json.dumps({"traceEvents": [], "distributedInfo": {"rank": 3}}))

    trace = tmp_path / "nested" / "t.json"
    profiling.export_trace(Prof(), trace)
    assert json.loads(trace.read_text())["distributedInfo"] == {"rank": 3}


def _with_steps(events):
    """The fixture's events inside one ProfilerStep, host and device side, as torch 2.x records."""
    host = [e for e in events if e.get("ph") == "X" and e.get("cat") == "user_annotation"]
    device = [e for e in events if e.get("ph") == "X" and e.get("cat") == "kernel"]
    start = min(float(e["ts"]) for e in host) - 1.0
    end = max(float(e["ts"]) + float(e.get("dur", 0)) for e in host + device) + 1.0
    step = {"ph": "X", "name": "ProfilerStep#0", "ts": start, "dur": end - start}
    return [
        {**step, "cat": "user_annotation", "pid": host[0]["pid"], "tid": host[0]["tid"]},
        {**step, "cat": "gpu_user_annotation", "pid": device[0]["pid"], "tid": device[0]["tid"]},
        *events,
    ]


@pytest.mark.parametrize(
    "name", ["streams-correct.json", "streams-overlap.json", "streams-missing-producer-wait.json"]
)
def test_step_ranges_change_no_lane_mark_or_kernel_row(name, tmp_path):
    events = streamtrace.load(FIXTURES / name)
    stepped = _with_steps(events)
    assert len(_steps(stepped)) == 2
    assert streamtrace.timeline(stepped) == streamtrace.timeline(events)
    assert streamtrace.sections(stepped) == streamtrace.sections(events)
    plain, marked = tmp_path / "plain.json", tmp_path / "marked.json"
    plain.write_text(json.dumps({"traceEvents": events}))
    marked.write_text(json.dumps({"traceEvents": stepped}))
    rows = profiling._cuda_rows(plain, 1)
    assert rows and profiling._cuda_rows(marked, 1) == rows


def test_streams_trace_has_a_step_per_section_and_the_same_sections(monkeypatch, tmp_path):
    """cuda_parts._profile's real profiler session on CPU (the CUDA calls replaced by CPU work)."""
    x = torch.randn(16, 16)
    monkeypatch.setattr(cuda_parts, "ACTIVITIES", [torch.profiler.ProfilerActivity.CPU])
    monkeypatch.setattr(torch.cuda, "synchronize", lambda device=None: None)
    monkeypatch.setattr(
        cuda_parts, "VARIANT_FUNCTIONS", {"a": lambda w: x @ x, "b": lambda w: x + x}
    )
    monkeypatch.setattr(cuda_parts, "host_blocking", lambda *args: x.sum())

    trace = tmp_path / "streams.json"
    cuda_parts._profile(SimpleNamespace(delay_cycles=0, x=x), ["a", "b"], [], trace)
    data = json.loads(trace.read_text())
    assert data["distributedInfo"]["rank"] == 0
    events = data["traceEvents"]
    assert sorted(e["name"] for e in _steps(events)) == [f"ProfilerStep#{i}" for i in range(3)]
    names = [name for name, _, _ in streamtrace.sections(events)]
    assert names == ["variant:a", "variant:b", "host-blocking"]
