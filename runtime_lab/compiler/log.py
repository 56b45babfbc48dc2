"""torch.compile's structured trace (what TORCH_TRACE writes), read without torch: compiles, guards."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

MAX_GUARD_CHARS = 6_000
# the keys of a record that say where it belongs, not what it is
_PLACE = {"frame_id", "frame_compile_id", "attempt", "compiled_autograd_id", "has_payload", "rank"}
_GB = re.compile(r"\bgb\d{4}\b")
_GUARD_LATENCY = re.compile(r"Guard latency = ([\d.]+) us")


@dataclass(frozen=True)
class CompileEntry:
    """One compile id of the trace: what Dynamo said about it (compilation_metrics + guards)."""

    compile_id: str  # "0/1": frame 0, its second compile (tlparse names it [0/1])
    report_dir: str  # the compile's folder inside the tlparse report, e.g. "-_0_1_0"
    status: str  # "compiled" | "failed" | "graph break" | "no graph" (Dynamo skipped the frame)
    guard_count: int | None = None
    guards: str | None = None  # Dynamo's guard tree for this compile, source comments dropped
    recompile_reason: str | None = None
    fail_reason: str | None = None
    graph_breaks: int = 0
    dynamo_s: float | None = None  # dynamo_cumulative_compile_time (all of this compile)
    inductor_s: float | None = None
    cudagraph_skip: str | None = None  # why Inductor did not use CUDA graphs, as it says
    guard_latency_us: float | None = None  # Dynamo's own timing of one check of these guards


@dataclass(frozen=True)
class KernelSource:
    """One generated kernel joined to what it came from: ATen ops, graph nodes, user lines."""

    compile_id: str
    kernel: str  # as Inductor names it: triton_poi_fused_add_mul_silu_sub_0, cpp_fused_…
    aten_ops: tuple[str, ...]  # the user-level ops it fuses (aten.silu: one op, decomposed)
    post_grad_ops: tuple[str, ...]  # the ATen ops Inductor lowered (aten.neg, aten.exp, …)
    source_lines: tuple[str, ...]  # "workload.py:11  F.silu(x + y) * (x - y)"
    origin: str  # "provenance tracking" | "generated code comments" | "graph comments"


@dataclass(frozen=True)
class GraphBreakSite:
    """One graph break as Dynamo logged it: where in user code, why, and its id where it has one."""

    compile_id: str
    user_line: str  # "breaks.py:24  if not s.isfinite().all().item():"
    reason: str  # the first line of what Dynamo could not trace
    explanation: str = ""
    hint: str = ""
    gb_id: str | None = None  # gb0124: the graph-break site's page explains it (torch >= 2.8)
    url: str | None = None


@dataclass(frozen=True)
class CompileEvidence:
    """What one compiled function's trace shows, and where its files are."""

    trace_file: str | None = None  # the raw structured trace (TORCH_TRACE format), data dir
    report_file: str | None = None  # tlparse's HTML report and the raw log, zipped
    note: str = ""  # why something is missing (tlparse not installed, torch too old, …)
    compiles: tuple[CompileEntry, ...] = ()
    kernels: tuple[KernelSource, ...] = ()
    provenance: bool = False  # Inductor's provenance tracking was on for these compiles
    graph_breaks: tuple[GraphBreakSite, ...] = ()


@dataclass(frozen=True)
class Record:
    kind: str  # the record's key: dynamo_start, compilation_metrics, artifact:<name>, …
    meta: dict
    payload: str

    @property
    def compile_id(self) -> str | None:
        frame, compile_ = self.meta.get("frame_id"), self.meta.get("frame_compile_id")
        if frame is None or compile_ is None:
            return None
        return f"{frame}/{compile_}"

    @property
    def attempt(self) -> int:
        return int(self.meta.get("attempt") or 0)


def _kind(meta: dict) -> str:
    keys = [k for k in meta if k not in _PLACE]
    kind = keys[0] if keys else "?"
    if kind == "artifact" and isinstance(meta.get("artifact"), dict):
        return f"artifact:{meta['artifact'].get('name', '')}"
    return kind


def read(path: str | Path) -> list[Record]:
    """Every record of a trace log: a glog-style prefix and a JSON object per line, with the
    payload (if any) on the following tab-indented lines."""
    records, meta, lines = [], None, []
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    for line in text.split("\n"):
        if line.startswith("\t"):
            lines.append(line[1:])
            continue
        if meta is not None:
            records.append(Record(_kind(meta), meta, "\n".join(lines)))
        meta, lines = _meta(line), []
    if meta is not None:
        records.append(Record(_kind(meta), meta, "\n".join(lines)))
    return records


def _meta(line: str) -> dict | None:
    start = line.find("{")
    if start < 0:
        return None
    try:
        found = json.loads(line[start:])
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def by_compile(records: list[Record]) -> dict[str, list[Record]]:
    """Records per compile id, in trace order (records outside a compile are left out)."""
    found: dict[str, list[Record]] = {}
    for record in records:
        if record.compile_id is not None:
            found.setdefault(record.compile_id, []).append(record)
    return found


def report_dir(record: Record) -> str:
    """The folder tlparse writes a compile's artefacts to: -_<frame>_<compile>_<attempt>."""
    return f"-_{record.meta['frame_id']}_{record.meta['frame_compile_id']}_{record.attempt}"


def _seconds(metrics: dict, key: str) -> float | None:
    value = metrics.get(f"{key}_us")
    if isinstance(value, int | float):
        return value / 1e6
    value = metrics.get(f"{key}_s", metrics.get(key))
    return float(value) if isinstance(value, int | float) else None


def strip_guard_comments(text: str, limit: int = MAX_GUARD_CHARS) -> str:
    """The guard tree without its trailing '# source line' comments, bounded."""
    lines = [re.sub(r"\s{2,}#\s.*$", "", line).rstrip() for line in text.strip().splitlines()]
    text = "\n".join(line for line in lines if line)
    return text if len(text) <= limit else text[:limit] + "\n… truncated"


def compile_entries(records: list[Record]) -> tuple[CompileEntry, ...]:
    """One entry per compile id that has compilation metrics, in compile order."""
    entries = []
    for compile_id, group in by_compile(records).items():
        metrics = [r for r in group if r.kind == "compilation_metrics"]
        if not metrics:
            continue
        last = metrics[-1]
        m = last.meta.get("compilation_metrics") or {}
        guards = [r for r in group if r.kind == "dynamo_cpp_guards_str" and r.payload.strip()]
        entries.append(
            CompileEntry(
                compile_id=compile_id,
                report_dir=report_dir(last),
                status=_status(m, group),
                guard_count=m.get("guard_count"),
                guards=strip_guard_comments(guards[-1].payload) if guards else None,
                recompile_reason=m.get("recompile_reason") or None,
                fail_reason=_fail(m),
                graph_breaks=int(m.get("num_graph_breaks") or 0),
                dynamo_s=_seconds(m, "dynamo_cumulative_compile_time"),
                inductor_s=_seconds(m, "inductor_cumulative_compile_time"),
                cudagraph_skip=m.get("cudagraph_skip_reason") or None,
                guard_latency_us=_guard_latency(guards[-1].payload) if guards else None,
            )
        )
    return tuple(entries)


def _guard_latency(text: str) -> float | None:
    found = _GUARD_LATENCY.search(text)
    return float(found[1]) if found else None


def _fail(m: dict) -> str | None:
    parts = [str(m[k]) for k in ("fail_type", "fail_reason") if m.get(k)]
    return ": ".join(parts) or None


def _status(m: dict, group: list[Record]) -> str:
    if m.get("fail_type") or m.get("fail_reason"):
        return "failed"
    if not any(r.kind == "dynamo_output_graph" for r in group):
        return "no graph"
    return "graph break" if m.get("num_graph_breaks") else "compiled"


def graph_break_ids(text: str) -> tuple[str, ...]:
    """The graph-break ids (gb0170, …) a reason names, in order; () on a torch without them."""
    return tuple(dict.fromkeys(_GB.findall(text or "")))


def payloads(records: list[Record], kind: str) -> Iterator[tuple[str, str]]:
    """(compile id, payload) of each record of one kind."""
    for record in records:
        if record.kind == kind and record.compile_id is not None:
            yield record.compile_id, record.payload


_USER_AT = re.compile(r"^Graph break in user code at (.+?):(\d+)", re.MULTILINE)
_FRAME = re.compile(r'File "([^"]+)", line (\d+), in [^\n]*\n\s*([^\n]*)')
_URL = re.compile(r"(https?://\S+/(gb\d{4})\.html)")


def _field(text: str, name: str) -> str:
    found = re.search(rf"^\s*{name}: (.+)$", text, re.MULTILINE)
    return found[1].strip() if found else ""


def graph_break_sites(records: list[Record]) -> tuple[GraphBreakSite, ...]:
    """Each dynamo_graph_break_reason record: the user line, the reason, explanation, hint, id."""
    sites = []
    for compile_id, text in payloads(records, "artifact:dynamo_graph_break_reason"):
        user, _, _ = text.partition("\nTraceback (most recent call last)")
        head, _, stack = user.partition("User code traceback:")
        frames = _FRAME.findall(stack)
        at = _USER_AT.search(head)
        if frames:
            path, line, code = frames[-1]
            where = f"{Path(path).name}:{line}  {code.strip()}"
        else:
            where = f"{Path(at[1]).name}:{at[2]}" if at else ""
        body = head.split("\n\n", 1)[1] if "\n\n" in head else head
        reason = next((ln.strip() for ln in body.splitlines() if ln.strip()), "")
        url = _URL.search(head)
        sites.append(
            GraphBreakSite(
                compile_id=compile_id,
                user_line=where,
                reason=reason,
                explanation=_field(head, "Explanation"),
                hint=_field(head, "Hint"),
                gb_id=url[2] if url else (graph_break_ids(head) or (None,))[0],
                url=url[1] if url else None,
            )
        )
    return tuple(sites)
