"""Fusion report: kernel resources and occupancy (table, chart, notes) and the long-chain what-if."""

from __future__ import annotations

from dataclasses import dataclass

import altair as alt
import pandas as pd

from runtime_lab.compiler.occupancy import DEFAULT_SMEM_PER_BLOCK
from runtime_lab.fusion.report import kernel_table as fk
from runtime_lab.fusion.report.figures import FusionFigures
from runtime_lab.fusion.report.occupancy_chart import occupancy_chart
from runtime_lab.fusion.result import FusionResult

INTEGERS = ("registers_per_thread", "spilled_registers", "smem_bytes")
TABLE_TITLE = "Kernel resources and occupancy (theoretical: NVIDIA's occupancy rules)"
CHART_TITLE = "Kernel resources: achieved GB/s against theoretical occupancy, per kernel"
RESOURCES_NOTE = (
    "Kernel resources: grid, block, registers and shared memory (static + dynamic) are the "
    "profiler's (CUPTI), registers from Inductor's compiled Triton kernel where the trace has "
    "none; spills and configs are Triton's. Theoretical occupancy follows NVIDIA's occupancy "
    "calculator on this GPU's limits (device properties, the rest from the CUDA Programming "
    "Guide's compute-capability table); GB/s per kernel is its bytes-model share over the "
    "profiler's time per launch, not the timed median."
)


@dataclass(frozen=True)
class KernelViews:
    tables: tuple[tuple[str, pd.DataFrame], ...] = ()
    charts: tuple[tuple[str, alt.TopLevelMixin], ...] = ()
    notes: tuple[str, ...] = ()


def _fmt(value, spec: str = "g", unit: str = "") -> str:
    return "—" if value is None or pd.isna(value) else f"{value:{spec}}{unit}"


def _describe(row) -> str:
    """One kernel's resources in a phrase (a row of the resources frame)."""
    text = f"{_fmt(row['registers_per_thread'], '.0f')} registers/thread"
    spills = row["spilled_registers"]
    if spills is not None and not pd.isna(spills):
        text += f", {spills:.0f} spilled"
    if not pd.isna(row["occupancy_pct"]):
        text += f", {row['occupancy_pct']:.1f} % occupancy ({row['limiting_resource']})"
    return text


def _profiler_note(frame: pd.DataFrame, result: FusionResult) -> str | None:
    """Where the profiler's estimate reads below the theoretical occupancy, and why: it caps
    resident blocks at grid ÷ SMs and checks shared memory against the 48 KiB default."""
    sms = result.device_limits.sm_count
    low = frame[frame["profiler_occupancy_pct"] < frame["occupancy_pct"] - 1]
    reasons = []
    for row in low.drop_duplicates(["mode", "name"]).itertuples():
        if row.smem_bytes and row.smem_bytes > DEFAULT_SMEM_PER_BLOCK:
            why = f"its {row.smem_bytes:,} B of shared memory fail the 48 KiB default check"
        elif row.grid_blocks and row.grid_blocks / sms < row.blocks_per_sm:
            why = f"its grid gives {row.grid_blocks / sms:.2f} blocks per SM"
        else:
            continue
        reasons.append(
            f"{row.mode} · {row.kernel}: {row.profiler_occupancy_pct:.0f} % vs "
            f"{row.occupancy_pct:.1f} % ({why})"
        )
    if not reasons:
        return None
    return (
        "The profiler's 'est. achieved occupancy' is not achieved occupancy: Kineto caps "
        "resident blocks at grid blocks ÷ SMs and checks shared memory against the 48 KiB "
        f"default. Below the theoretical figure here: {'; '.join(reasons)}."
    )


def _configs_note(frame: pd.DataFrame) -> str | None:
    """Each compiled mode's main kernel: the config Inductor chose and what it costs."""
    main = fk.longest(frame)
    tuned = main[main["triton_config"].notna()]
    if tuned.empty:
        return None
    parts = [f"{r['mode']}: {r['triton_config']}: {_describe(r)}" for _, r in tuned.iterrows()]
    return "Triton configs (the kernel with the most time per call): " + "; ".join(parts) + "."


def _ms(modes: pd.DataFrame, mode: str) -> float | None:
    found = modes.loc[modes["mode"] == mode, "steady_state_ms"]
    return None if found.empty or pd.isna(found.iloc[0]) else float(found.iloc[0])


def whatif_note(result: FusionResult, modes: pd.DataFrame, frame: pd.DataFrame) -> str | None:
    """The long chain: is the fused kernel, holding 16 live values per element, slower than
    eager's 62 kernels? Said with the figures either way."""
    if result.variant != "long-chain":
        return None
    fused = [m.mode for m in result.modes if m.mode.startswith("inductor") and m.ran]
    eager_ms = _ms(modes, "eager")
    if not fused or eager_ms is None or _ms(modes, fused[0]) is None:
        return "Long chain: no eager and compiled pair timed: nothing to compare."
    name, fused_ms = fused[0], _ms(modes, fused[0])
    by = {m.mode: m for m in result.modes}
    main = fk.longest(frame).set_index("mode") if not frame.empty else frame
    side = {m: _kernels(by[m].kernel_count) for m in ("eager", name)}
    side |= {m: f"{side[m]}, {_describe(main.loc[m])}" for m in side if m in main.index}
    transfers = {m: by[m].transfers_per_element for m in ("eager", name)}
    figures = (
        f"{name} {fused_ms:.4g} ms per call ({side[name]}) against eager {eager_ms:.4g} ms "
        f"({side['eager']}); element transfers per output element {transfers[name]} vs "
        f"{transfers['eager']}"
    )
    if fused_ms > eager_ms:
        return (
            f"Long chain: the fused kernel is slower than eager ({fused_ms / eager_ms:.2f}× the "
            f"time): {figures}."
        )
    text = (
        f"Long chain: the fused kernel is not slower than eager here ({eager_ms / fused_ms:.2f}× "
        f"faster): {figures}."
    )
    occupancy = {m: main.loc[m, "occupancy_pct"] if m in main.index else None for m in side}
    known = all(v is not None and not pd.isna(v) for v in occupancy.values())
    if known and occupancy[name] < occupancy["eager"]:
        text += (
            f" Register pressure cut its occupancy to {occupancy[name]:.1f} % (eager's longest "
            f"kernel: {occupancy['eager']:.1f} %), and it still won: it moves "
            f"{transfers[name]} element transfers where eager moves {transfers['eager']}."
        )
    return text


def _kernels(count: float | None) -> str:
    return f"{_fmt(count)} kernel{'' if count == 1 else 's'} per call"


def views(
    result: FusionResult, fig: FusionFigures, modes: pd.DataFrame, frame: pd.DataFrame
) -> KernelViews:
    """What the fusion page adds for kernel resources; nothing for runs recorded before them
    (frame: fk.resources_frame; without device limits no occupancy column is filled)."""
    notes = [f"{m.mode}: {m.triton_note}" for m in result.modes if m.triton_note]
    if result.limits_note:
        notes.insert(0, result.limits_note)
    whatif = whatif_note(result, modes, frame)
    if result.device_limits is None or frame["occupancy_pct"].isna().all():
        return KernelViews(notes=tuple(notes + ([whatif] if whatif else [])))
    notes.append(RESOURCES_NOTE)
    notes += [n for n in (_configs_note(frame), _profiler_note(frame, result), whatif) if n]
    table = frame[fk.TABLE].dropna(axis="columns", how="all")
    counts = [c for c in INTEGERS if c in table]
    table = table.astype(dict.fromkeys(counts, "Int64"))  # 24, not 24.0, beside the gaps
    charts = ()
    if frame["gbps"].notna().any():
        chart = occupancy_chart(frame, fig.ceiling_gbps, fig.ceiling_source)
        charts = ((CHART_TITLE, chart),)
    return KernelViews(tables=((TABLE_TITLE, table),), charts=charts, notes=tuple(notes))
