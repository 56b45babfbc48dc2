"""The lab's steady-state clock against triton's do_bench on one callable in one process,
changing one thing at a time (calls, warm-up, idle gap before, flush, per-call sync), with the
SM clock, power and throttle reasons sampled by nvidia-smi every 20 ms during each (issue 50).

python3 -m scripts.evidence.timing_protocols [WORKLOAD] [ROUNDS]
WORKLOAD: matmul (4096x4096 @ 4096x14336 bf16, default) or attention (the catalog's preset).
Prints one JSON line per variant and round, then a table of medians over the rounds."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time

import torch
from triton.testing import do_bench

from runtime_lab.lab.timing import measure

SAMPLE_MS = 20
QUERY = "clocks.sm,power.draw,clocks_throttle_reasons.active"


def _callable(name: str):
    if name == "matmul":
        a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(4096, 14336, device="cuda", dtype=torch.bfloat16)
        return lambda: torch.matmul(a, b)
    from runtime_lab.spec import build_spec
    from runtime_lab.workloads import ops
    from runtime_lab.workloads.fit import spec_params

    options = {"workload": name, "modes": "eager"}
    spec = build_spec("fusion", "llama3-8b-4k", dtype="bfloat16", device="cuda", options=options)
    dtype, device = torch.bfloat16, torch.device("cuda")
    work = ops.load(name, spec.shape, dtype, device, spec.seed, spec_params(spec))
    return lambda: work.fn(*work.inputs)


class Watch:
    """nvidia-smi in the background: SM MHz, W and the throttle bitmask every SAMPLE_MS."""

    def __enter__(self):
        self.proc = subprocess.Popen(
            [
                "nvidia-smi",
                "-i",
                "0",
                f"--query-gpu={QUERY}",
                "--format=csv,noheader,nounits",
                f"-lms={SAMPLE_MS}",
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        return self

    def __exit__(self, *exc):
        self.proc.terminate()
        out, _ = self.proc.communicate(timeout=10)
        rows = [line.split(",") for line in out.strip().splitlines() if line.count(",") == 2]
        mhz = [float(r[0]) for r in rows if r[0].strip().replace(".", "").isdigit()]
        watts = [float(r[1]) for r in rows if r[1].strip().replace(".", "").isdigit()]
        reasons = [int(r[2], 16) for r in rows if r[2].strip().startswith("0x")]
        capped = [x for x in reasons if x & 0x4]  # SW power cap
        self.state = {
            "samples": len(rows),
            "sm_mhz_median": statistics.median(mhz) if mhz else None,
            "sm_mhz_min": min(mhz) if mhz else None,
            "power_w_median": statistics.median(watts) if watts else None,
            "power_capped_pct": 100 * len(capped) / len(reasons) if reasons else None,
            "reasons": sorted({hex(x) for x in reasons}),
        }


def lab(fn, warmup: int, repeat: int, flush: bool = True) -> list[float]:
    for _ in range(warmup):
        fn()
    t = measure(fn, device=torch.device("cuda"), label="x", warmup=0, repeat=repeat, l2_flush=flush)
    return list(t.device_ms)


def synced(fn, repeat: int) -> list[float]:
    """Each call alone: flush, sync, events around the call, sync (no queue ahead of it)."""
    cache = torch.empty(256 * 2**20 // 4, dtype=torch.int32, device="cuda")
    out = []
    for _ in range(repeat):
        cache.zero_()
        torch.cuda.synchronize()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        out.append(s.elapsed_time(e))
    return out


def variants(fn, est_ms: float) -> dict:
    n_rep = max(1, int(100 / est_ms))  # do_bench's counts for rep=100 ms, warmup=25 ms
    n_warm = max(1, int(25 / est_ms))
    return {
        "lab (10 warm, 50 timed)": lambda: lab(fn, 10, 50),
        f"lab, do_bench's warm-up ({n_warm})": lambda: lab(fn, n_warm, 50),
        f"lab, do_bench's calls ({n_rep})": lambda: lab(fn, 10, n_rep),
        f"lab, both ({n_warm}, {n_rep})": lambda: lab(fn, n_warm, n_rep),
        "lab, no flush": lambda: lab(fn, 10, 50, flush=False),
        "lab, per-call sync": lambda: synced(fn, 50),
        "do_bench (25 ms, 100 ms)": lambda: [
            do_bench(fn, warmup=25, rep=100, return_mode="median")
        ],
        "do_bench, lab's window": lambda: [
            do_bench(fn, warmup=10 * est_ms, rep=50 * est_ms, return_mode="median")
        ],
    }


def main(name: str = "matmul", rounds: int = 3) -> None:
    import triton

    print(
        f"{torch.cuda.get_device_name()} · torch {torch.__version__} · triton {triton.__version__}"
    )
    fn = _callable(name)
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    est = do_bench(fn, warmup=25, rep=100, return_mode="median")
    found: dict[str, list[dict]] = {}
    for r in range(rounds):
        for gap in (1.0, 0.0):  # after an idle second (the lab's job start), and hot
            for label, run in variants(fn, est).items():
                time.sleep(gap)
                with Watch() as w:
                    samples = run()
                row = {
                    "round": r,
                    "gap_s": gap,
                    "variant": label,
                    "median_ms": statistics.median(samples),
                    "first10_ms": statistics.median(samples[:10]),
                    "last10_ms": statistics.median(samples[-10:]),
                    "calls": len(samples),
                    **w.state,
                }
                print(json.dumps(row), flush=True)
                found.setdefault(f"{label} | gap {gap:g} s", []).append(row)
    print(
        f"\n{name}: medians over {rounds} rounds (ms; ÷ do_bench default hot), SM MHz, W, power-capped %"
    )
    base = statistics.median(r["median_ms"] for r in found["do_bench (25 ms, 100 ms) | gap 0 s"])
    for key, rows in found.items():
        ms = statistics.median(r["median_ms"] for r in rows)
        mhz = statistics.median(r["sm_mhz_median"] or 0 for r in rows)
        w = statistics.median(r["power_w_median"] or 0 for r in rows)
        cap = statistics.median(r["power_capped_pct"] or 0 for r in rows)
        print(f"{key:52s} {ms:8.4f}  {ms / base:6.3f}  {mhz:6.0f} MHz {w:5.0f} W  cap {cap:4.0f} %")


if __name__ == "__main__":
    main(*(sys.argv[1:2] or ["matmul"]), *(int(a) for a in sys.argv[2:3]))
