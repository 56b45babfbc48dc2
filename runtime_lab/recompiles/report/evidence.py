"""The recompiles report's compile evidence: compile ids, tlparse folders, breaks, guards."""

from __future__ import annotations

from runtime_lab.compiler import frames as cf
from runtime_lab.recompiles.result import RecompilesResult


def with_folders(calls, result: RecompilesResult):
    """Each call's compile id with its folder in the mode's tlparse report, where traced."""
    folders = {
        (m.mode, c.compile_id): c.report_dir
        for m in result.modes
        if m.compile_evidence
        for c in m.compile_evidence.compiles
    }
    if calls.empty or not folders:
        return calls
    keys = zip(calls["mode"], calls["compile_id"], strict=True)
    return calls.assign(tlparse_folder=[folders.get(k) for k in keys])


def evidence_tables(result: RecompilesResult) -> list:
    traced = [(m.mode, m.compile_evidence) for m in result.modes if m.compile_evidence]
    g = result.graph_break
    tables = []
    if traced:
        tables.append(("Compile ids (structured compile trace)", cf.compile_ids(traced)))
    if g is not None and g.compile_evidence and g.compile_evidence.graph_breaks:
        tables.append(
            ("Graph breaks: where, why, and their ids", cf.break_sites(g.compile_evidence))
        )
    return tables


def guard_code(result: RecompilesResult, order: list[str]) -> list:
    code = []
    for m in (next(x for x in result.modes if x.mode == n) for n in order):
        text = cf.guard_text(m.compile_evidence) if m.compile_evidence else None
        if text:
            code.append((f"Guards per compile id: {m.mode}", "text", text))
        elif m.final_guards:
            title = f"Guards of the final frame ({m.final_compile_id}): {m.mode}"
            code.append((title, "text", m.final_guards))
    return code
