"""Measurement evidence on a GPU: loops against clean processes whatever ran before, clocks, ceiling."""

from __future__ import annotations

from typing import Any

from benchmarks import clean
from benchmarks.harness import Bench, Finished
from benchmarks.recipe import Recipe, Settings, flag, sides, whole
from runtime_lab.spec import build_spec

LOOP_MODES = ("eager", "cuda-graph", "cuda-graph-inductor")
SMALL = "eager,inductor,cuda-graph,cuda-graph-inductor"
ALLOWED_RATIO = 0.10  # a lab loop within ±10 % of the clean processes' median counts as the same


def fusion(bench: Bench, shape: str, dtype: str = "float32", modes: str = SMALL) -> Finished:
    options = {"modes": modes, "compile_latency": False}
    return bench.run(build_spec("fusion", shape, dtype=dtype, device=bench.device, options=options))


def clean_median(bench: Bench, processes: int) -> dict[str, float]:
    """The median over clean processes, per mode: a launch-bound loop moves between processes
    of one script, so each process's figures are shown beside it."""
    cleans = [clean.reference("loops") for _ in range(processes)]
    bench.show("clean processes, µs per call (median of 20 loops of 200)", cleans)
    return {mode: sorted(c[mode] for c in cleans)[len(cleans) // 2] for mode in cleans[0]}


def order_independence(bench: Bench, clean_us: dict[str, float]) -> list[dict[str, Any]]:
    """256² fusion first, after an allocator job and after a streams job, against clean."""
    device = bench.device
    cases = {"first": fusion(bench, "256x256")}
    shapes = {"shapes": "1024x1024,4096x4096", "compare_side": 4096}
    bench.run(build_spec("allocator", "1024x1024", device=device, options=shapes))
    cases["after allocator"] = fusion(bench, "256x256")
    bench.run(build_spec("streams", "1024x1024", device=device, options={"trials": 5}))
    cases["after streams"] = fusion(bench, "256x256")
    rows = []
    for case, finished in cases.items():
        loops = (finished.figures or {}).get("loop_us_per_call", {})
        for mode in (*LOOP_MODES, "inductor"):
            lab, ref = loops.get(mode), clean_us.get(mode)
            ratio = lab / ref if lab and ref else None
            same = None if mode == "inductor" or ratio is None else abs(ratio - 1) <= ALLOWED_RATIO
            rows.append(
                {
                    "case": case,
                    "mode": mode,
                    "lab_us": lab,
                    "clean_us": ref,
                    "ratio": ratio,
                    "same": same,
                }
            )
    bench.show("order independence: the lab's 256² loops against clean processes", rows)
    return rows


def clocks_and_ceiling(bench: Bench, sides: tuple[int, ...]) -> list[dict[str, Any]]:
    """Each mode's GB/s as a share of the measured ceiling, and its clocks against the lab's."""
    rows = []
    for dtype in ("float32", "bfloat16"):
        for side in sides:
            finished = fusion(bench, f"{side}x{side}", dtype, modes="eager,inductor")
            figures = finished.figures or {}
            ceiling = figures.get("ceiling_gbps")
            for mode, gbps in figures.get("achieved_gbps", {}).items():
                clocks = figures.get("clocks", {}).get(mode, {})
                lab = clocks.get("lab")
                rows.append(
                    {
                        "side": side,
                        "dtype": dtype,
                        "mode": mode,
                        "gbps": gbps,
                        "ceiling_gbps": ceiling,
                        "ceiling_source": figures.get("ceiling_source"),
                        "ceiling_pct": 100 * gbps / ceiling if gbps and ceiling else None,
                        **{
                            f"{clock} ÷ lab": ms / lab
                            for clock, ms in clocks.items()
                            if lab and clock != "lab"
                        },
                    }
                )
    bench.show("clocks and ceiling", rows)
    return rows


def measure(bench: Bench, settings: Settings) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if settings.flag("order"):
        # the clean processes run before the lab starts: a worker starting beside them would
        # share the GPU and the host's cores with them
        clean_us = clean_median(bench, settings.whole("clean_processes"))
        rows = order_independence(bench, clean_us)
        out["clean_us"] = clean_us
        out["order_independence"] = rows
        if any(row["same"] is False for row in rows):
            bench.note(
                "a lab loop is more than 10 % off the clean processes' median (marked same=no)"
            )
    sides = tuple(int(side) for side in settings.items("sides"))
    if sides:
        rows = clocks_and_ceiling(bench, sides)
        highest = max(
            (r["ceiling_pct"] for r in rows if r["ceiling_pct"] is not None), default=None
        )
        bench.note(f"highest % of ceiling over every size and dtype: {highest}")
        out["clocks_and_ceiling"] = rows
        out["highest_ceiling_pct"] = highest
    return out


RECIPE = Recipe(
    name="measurement",
    summary="the lab's loops against clean processes whatever ran before, clocks, % of ceiling",
    measure=measure,
    devices=("cuda",),
    settings={
        "order": flag("yes", "the order-independence check at 256² (with clean processes)"),
        "clean_processes": whole("3", "clean reference processes for the order check", 1, 20),
        "sides": sides(
            "8192,16384,32768",
            "square sides of the clocks and ceiling check",
            1,
            65536,
            "empty: skip",
        ),
    },
    replaces="scripts/measurement_evidence.py",
)
