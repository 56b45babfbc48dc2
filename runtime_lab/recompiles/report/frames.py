"""Recompiles results → tidy DataFrames: calls, per-mode totals, limit, reasons, bucketing, breaks."""

from __future__ import annotations

import pandas as pd

from runtime_lab.recompiles import cudagraph_calls as cg
from runtime_lab.recompiles.report import workload as rw
from runtime_lab.recompiles.report.figures import RecompilesFigures
from runtime_lab.recompiles.result import ModeRun, RecompilesResult

NEAR_LIMIT = 0.75  # compiles at or past 75 % of the limit: one more shape family and it is hit
MB = 1e6


def _text(shape) -> str:
    return "x".join(str(d) for d in shape)


def call_label(index: int, shape, dtype: str, default_dtype: str) -> str:
    """The x-axis name of a call: its position and what the sequence asked for."""
    suffix = "" if dtype == default_dtype else f":{dtype}"
    return f"{index}: {_text(shape)}{suffix}"


def calls_frame(result: RecompilesResult) -> pd.DataFrame:
    """One row per mode and call: what Dynamo did, its cost, the frame that ran it, and why."""
    rows = []
    for mode in result.modes:
        for c in mode.calls:
            rows.append(
                {
                    "mode": mode.mode,
                    "call": c.index,
                    "label": call_label(c.index, c.requested_shape, c.dtype, result.dtype),
                    "shape": _text(c.requested_shape),
                    "run_shape": _text(c.shape),
                    "dtype": c.dtype,
                    "event": c.event,
                    "compiled": c.event in ("compile", "recompile"),
                    "compile_s": c.compile_s,
                    "call_s": c.call_s,
                    "compile_id": c.compile_id or "— (eager)",
                    "reason": c.reason,
                    "guard_failures": "\n".join(c.guard_failures) or None,
                    "guard_failure_count": len(c.guard_failures),
                    "guard_count": c.guard_count,
                    "fx_cache": c.fx_cache,
                    "steady_ms": c.steady_ms,
                    "steady_iqr_ms": c.steady_iqr_ms,
                    "eager_ms": c.eager_ms,
                    "padding_bytes": c.padding_bytes,
                    "error": c.error,
                    "stance": c.stance,
                    "cudagraph": c.cudagraph,
                    "cudagraph_id": c.cudagraph_id,
                    "cudagraph_reason": c.cudagraph_reason,
                }
            )
    columns = ["mode", "call", "label", "shape", "run_shape", "dtype", "event", "compiled"]
    columns += ["compile_s", "call_s", "compile_id", "reason", "guard_failures"]
    columns += ["guard_failure_count", "guard_count", "fx_cache", "steady_ms", "steady_iqr_ms"]
    columns += ["eager_ms", "padding_bytes", "error", "stance", "cudagraph", "cudagraph_id"]
    frame = pd.DataFrame(rows, columns=[*columns, "cudagraph_reason"])
    if rw.workload_run(result):  # the named dims each call changed (runs from before: none)
        changed = [
            rw.changed_column(result, [c.requested_shape for c in m.calls]) for m in result.modes
        ]
        frame.insert(4, "changed", [text for mode in changed for text in mode])
    return frame


def limit_status(mode: ModeRun) -> str:
    if mode.limit_hit:
        return "hit"
    return "near" if mode.compiles >= NEAR_LIMIT * mode.recompile_limit else "within"


def _sum(values) -> float | None:
    values = [v for v in values if v is not None]
    return sum(values) if values else None


def totals_frame(result: RecompilesResult, fig: RecompilesFigures) -> pd.DataFrame:
    """One row per mode: graphs, compiles, recompiles, cache hits, seconds, the limit's state."""
    rows = []
    by = {m.mode: m for m in result.modes}
    for name in fig.order:
        m = by[name]
        graphs = fig.cudagraphs if m.mode == cg.MODE else {}
        rows.append(
            {
                "mode": m.mode,
                "what": m.detail or m.error,
                "calls": len(m.calls),
                "unique_graphs": m.unique_graphs,
                "compiles": m.compiles,
                "recompiles": m.recompiles,
                "cache_hits": m.cache_hits,
                "eager_fallbacks": m.eager_fallbacks,
                "failed_calls": m.failed_calls,
                "compile_s": m.compile_s,
                "graph_breaks": m.graph_breaks,
                "recompile_limit": m.recompile_limit,
                "limit_used": f"{m.compiles} / {m.recompile_limit}",
                "limit_status": limit_status(m),
                "limit_state": m.limit_state,
                "steady_total_ms": _sum(c.steady_ms for c in m.calls),
                "eager_total_ms": _sum(c.eager_ms for c in m.calls),
                "padding_mb": sum(c.padding_bytes for c in m.calls) / MB,
                "final_compile_id": m.final_compile_id,
                "error": m.error,
                # None, not 0, where they do not apply: the report drops empty columns
                "stance": m.stance,
                "stance_eager": m.stance_eager if m.stance else None,
                "stance_failed": m.stance_failed if m.stance else None,
                **{f"cudagraphs_{state}": n for state, n in graphs.items()},
                "pool_mb": m.pool_bytes / MB if m.pool_bytes is not None else None,
            }
        )
    return pd.DataFrame(rows)


def cudagraph_frame(result: RecompilesResult) -> pd.DataFrame:
    """The reduce-overhead what-if per call: Dynamo's event beside what cudagraph trees did."""
    found = [m for m in result.modes if m.mode == cg.MODE and not m.error]
    rows = [
        {
            "call": c.index,
            "shape": _text(c.shape),
            "dtype": c.dtype,
            "event": c.event,
            "compile_id": c.compile_id,
            "cudagraph": c.cudagraph,
            "cuda_graph_id": c.cudagraph_id,
            "why": c.cudagraph_reason,
            "steady_ms": c.steady_ms,
        }
        for m in found
        for c in m.calls
    ]
    return pd.DataFrame(rows)


def limit_frame(result: RecompilesResult, fig: RecompilesFigures) -> pd.DataFrame:
    """Per mode, how much of recompile_limit the sequence used (compiles of one code object)."""
    rows = [
        {
            "mode": m.mode,
            "compiles": m.compiles,
            "recompile_limit": m.recompile_limit,
            "fraction": m.compiles / m.recompile_limit if m.recompile_limit else None,
            "status": limit_status(m),
            "state": m.limit_state or f"{m.compiles} of {m.recompile_limit} compiles used",
            "label": f"{m.compiles} / {m.recompile_limit}"
            + (" · limit hit" if m.limit_hit else ""),
        }
        for m in (next(x for x in result.modes if x.mode == n) for n in fig.order)
        if not m.error
    ]
    columns = ["mode", "compiles", "recompile_limit", "fraction", "status", "state", "label"]
    return pd.DataFrame(rows, columns=columns)


def reasons_frame(result: RecompilesResult) -> pd.DataFrame:
    """Every recompile and its guard failures: one row per failing cached frame."""
    rows = []
    for m in result.modes:
        for c in m.calls:
            if not c.reason:
                continue
            failures = c.guard_failures or (c.reason,)
            for failure in failures:
                rows.append(
                    {
                        "mode": m.mode,
                        "call": c.index,
                        "shape": _text(c.shape),
                        "dtype": c.dtype,
                        "event": c.event,
                        "new_compile_id": c.compile_id,
                        "first_reason": c.reason,
                        "guard_failure": failure,
                    }
                )
    columns = ["mode", "call", "shape", "dtype", "event", "new_compile_id", "guard_failure"]
    return pd.DataFrame(rows, columns=[*columns, "first_reason"])


def bucket_frame(result: RecompilesResult) -> pd.DataFrame:
    """Per call: the requested and padded shape, the extra bytes, and time static vs bucketed."""
    by = {m.mode: m for m in result.modes}
    bucketed = by.get("bucketed")
    if bucketed is None or bucketed.error:
        return pd.DataFrame()
    static = {c.index: c for c in by["dynamic=False"].calls} if "dynamic=False" in by else {}
    rows = []
    for c in bucketed.calls:
        unpadded = static.get(c.index)
        rows.append(
            {
                "call": c.index,
                "shape": _text(c.requested_shape),
                "padded_shape": _text(c.shape),
                "dtype": c.dtype,
                "padding_bytes": c.padding_bytes,
                "event": c.event,
                "static_event": unpadded.event if unpadded else None,
                "static_ms": unpadded.steady_ms if unpadded else None,
                "bucketed_ms": c.steady_ms,
                "eager_ms": c.eager_ms,
            }
        )
    return pd.DataFrame(rows)


def bucket_summary(totals: pd.DataFrame) -> pd.DataFrame:
    """Static shapes against bucketed ones: compiles and compile seconds vs padding cost
    (totals: totals_frame)."""
    totals = totals.set_index("mode")
    if "bucketed" not in totals.index or totals.loc["bucketed", "error"]:
        return pd.DataFrame()
    keep = [m for m in ("dynamic=False", "bucketed") if m in totals.index]
    rows = totals.loc[keep]
    out = pd.DataFrame(
        {
            "approach": [
                "static shapes (dynamic=False)" if m != "bucketed" else "bucketed" for m in keep
            ],
            "graphs": rows["unique_graphs"].to_numpy(),
            "compile_s": rows["compile_s"].to_numpy(),
            "padding_mb": rows["padding_mb"].to_numpy(),
            "steady_total_ms": rows["steady_total_ms"].to_numpy(),
        }
    )
    return out


def graph_break_frame(result: RecompilesResult) -> pd.DataFrame:
    """The graph-break variant as check / value rows."""
    g = result.graph_break
    if g is None:
        return pd.DataFrame(columns=["check", "value"])
    rows = [
        ("variant", g.variant),
        ("input", f"{_text(g.shape)} {g.dtype}"),
        ("graphs", "—" if g.error else str(g.unique_graphs)),
        ("graph breaks", "—" if g.error else str(g.graph_breaks)),
        ("break reasons", "; ".join(g.reasons) or "—"),
        ("output matches eager", {True: "yes", False: "NO", None: "—"}[g.matches_eager]),
        (
            "fullgraph=True",
            f"raises {g.fullgraph_error_type}" if g.fullgraph_error_type else "compiles (no error)",
        ),
    ]
    if g.error:
        rows.append(("error", g.error))
    return pd.DataFrame(rows, columns=["check", "value"])
