"""Issue 40 item 4's device evidence: the autotune choices a fusion run recorded, as tables (per op:
the winner, best Triton vs best extern, seconds; then every choice with its config).

Run, on a CUDA machine, in a fresh data directory (an empty Inductor cache: the choices are
benchmarked, not read from the cache):
  L="python3 -m runtime_lab --data-dir /tmp/lab-autotune"
  $L run fusion --workload swiglu_mlp --shape llama3-8b-4k --dtype bfloat16 --device cuda \\
    --compile-latency false --modes inductor,inductor-max-autotune-no-cudagraphs --json OUT.json
  python3 -m scripts.evidence.autotune_choices OUT.json [MORE.json …]"""

import json
import sys
from pathlib import Path

import pandas as pd

from runtime_lab import registry
from runtime_lab.fusion.report import autotune as ra

pd.set_option("display.width", 250, "display.max_columns", 30, "display.max_colwidth", 60)
SHOWN = ["op", "rank", "choice", "kind", "time_ms", "pct_of_winner", "winner", *ra.CONFIG_KEYS]


def show(path: Path) -> None:
    run = json.loads(path.read_text())
    result = registry.load(run)
    print(f"== {path}: run #{run.get('id')} {run['spec']['options'].get('workload')}")
    if result is None:
        print(f"  not done: {run.get('status')} {run.get('error') or ''}")
        return
    ops = ra.ops_frame(result)
    for line in ra.notes(result):
        print(f"  {line}")
    if ops.empty:
        return
    print(ops.drop(columns=["triton_vs_extern_words"]).to_string(index=False))
    choices = ra.choices_frame(result)
    for (mode, op), rows in choices.groupby(["mode", "op"], sort=False):
        print(f"\n-- {mode} · {op}: {len(rows)} choices")
        print(rows[SHOWN].dropna(axis="columns", how="all").to_string(index=False))


def main() -> None:
    if len(sys.argv) < 2:
        print(__doc__)
        raise SystemExit(2)
    for name in sys.argv[1:]:
        show(Path(name))


if __name__ == "__main__":
    main()
