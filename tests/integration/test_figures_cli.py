"""`python -m runtime_lab figures --json` as a user runs it: the glossary as a list of objects."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from runtime_lab.glossary import registry as glossary

ROOT = Path(__file__).resolve().parents[2]


def test_figures_json_lists_every_glossary_entry(tmp_path):
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, "-m", "runtime_lab", "figures", "--json", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and done.stderr == ""
    listed = json.loads(out.read_text(encoding="utf-8"))
    assert isinstance(listed, list) and len(listed) == len(glossary.figures())
    fields = {"experiment", "key", "label", "unit", "better", "how", "trust"}
    assert all(set(entry) == fields and all(entry.values()) for entry in listed)
    by = {(e["experiment"], e["key"]): e for e in listed}
    steady = by[("fusion", "steady_state_ms.*")]
    assert (steady["label"], steady["unit"], steady["better"]) == (
        "{} steady-state time",
        "ms",
        "lower",
    )
    assert {e["experiment"] for e in listed} == {"fusion", "recompiles", "streams", "allocator"}
