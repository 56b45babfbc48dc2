"""Issue 40 on the pages and the CLI: the kernel diff in compare, and a recompile's suggested fix
applied with one click (AppTest, replay pool) or --apply-suggestion (two real tiny CPU runs)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import fusiondata
from apphelpers import open_page, poll_until, widget
from comparedata import CPU_FUSION, legacy_runs, stored

from runtime_lab import ui
from runtime_lab.results import to_plain
from runtime_lab.ui.suggest import BUTTON

ROOT = Path(__file__).resolve().parents[2]


def _fusion_pair(history) -> tuple[int, int]:
    """Two CUDA-like fusion runs: eager + inductor, and eager + max-autotune (its own config)."""
    cpu = legacy_runs()[CPU_FUSION]
    eager, inductor, tuned = fusiondata.with_resources().modes
    runs = []
    for modes in ((eager, inductor), (eager, tuned)):
        result = replace(fusiondata.with_resources(), modes=modes)
        run = stored(cpu)
        run.spec["options"]["modes"] = ",".join(m.mode for m in modes)
        runs.append(history.add(replace(run, result=to_plain(result))))
    return runs[0], runs[1]


def test_the_history_compare_shows_the_kernel_diff_under_the_differing_modes(app):
    a, b = _fusion_pair(ui.manager().history)
    app.query_params["compare"] = f"{a},{b}"
    at = open_page(app, "app_pages/history.py")
    assert any(m.value == f"**Kernel diff: #{a} → #{b}**" for m in at.markdown)
    caption = next(c.value for c in at.caption if "Matched by name" in c.value)
    assert "option modes: eager,inductor → eager,inductor-max-autotune-no-cudagraphs" in caption
    diff = next(d.value for d in at.dataframe if "match" in d.value.columns)
    tuned = diff[diff["modes"] == "inductor → inductor-max-autotune-no-cudagraphs"].iloc[0]
    assert tuned["match"] == "same name" and "XBLOCK=256" in tuned[f"launch #{b}"]
    assert "XBLOCK=1024" in tuned[f"launch #{a}"]


def test_compare_json_carries_the_kernel_diff(data_dir, tmp_path):
    from runtime_lab.store.history import History

    data_dir.mkdir(parents=True, exist_ok=True)
    a, b = _fusion_pair(History(data_dir / "history.sqlite3"))
    out = tmp_path / "cmp.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "runtime_lab",
            "--data-dir",
            str(data_dir),
            "compare",
            str(a),
            str(b),
        ]
        + ["--json", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert f"Kernel diff, #{a} → #{b}:" in done.stdout
    (diff,) = json.loads(out.read_text())["kernel_diff"]
    assert diff["spec_differences"][0]["field"] == "option modes"
    tuned = diff["modes"][1]
    assert (tuned["a_mode"], tuned["b_mode"]) == ("inductor", "inductor-max-autotune-no-cudagraphs")
    (same,) = tuned["matched"]
    assert same["how"] == "same name" and same["a"][0]["launch"] != same["b"][0]["launch"]


def test_the_recompiles_page_applies_the_suggestion_in_one_click_then_shows_before_and_after(app):
    at = open_page(app, "app_pages/recompiles.py")
    widget(at.button, "Run").click().run()
    poll_until(at, lambda at: any(b.label == BUTTON for b in at.button))
    (said,) = [i.value for i in at.info if "mark_dynamic(x, 0)" in i.value]
    assert said.startswith("dynamic=None recompiled at call 2")
    widget(at.button, BUTTON).click().run()
    poll_until(at, lambda at: any("Suggestion applied" in m.value for m in at.markdown))
    jobs = ui.manager()
    latest = jobs.history.list("recompiles")[0]
    assert jobs.history.get(latest["id"]).spec["options"]["mark_dynamic"] == "x:0"
    table = next(
        d.value for d in at.dataframe if "mode" in d.value.columns and len(d.value.columns) == 3
    )
    assert list(table["mode"])[:2] == ["dynamic=False", "dynamic=None"]


def _run(data_dir, *args):
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "runtime_lab",
            "--data-dir",
            str(data_dir),
            "run",
            "recompiles",
            *args,
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=180,
    )


def test_apply_suggestion_marks_the_dim_and_records_no_more_graphs(data_dir, tmp_path):
    first = _run(
        data_dir,
        *("--shapes", "8x4,16x4,32x4,8x4", "--device", "cpu", "--warmup", "1", "--repeat", "3"),
        *("--backend", "eager", "--bucket", "off", "--graph-break", "off"),
        *("--compile-trace", "false", "--modes", "dynamic=False,dynamic=None"),
    )
    assert first.returncode == 0, first.stderr
    out = tmp_path / "after.json"
    done = _run(data_dir, "--apply-suggestion", "1", "--json", str(out))
    assert done.returncode == 0, done.stderr
    applied = json.loads(out.read_text())["apply_suggestion"]
    assert (applied["from_run"], applied["mark_dynamic"], applied["applied"]) == (
        1,
        "x:0",
        "x:0,y:0",
    )
    graphs = applied["unique_graphs"]
    assert graphs["before"] == {"dynamic=False": 3, "dynamic=None": 2}
    assert graphs["after"] == {"dynamic=False": 1, "dynamic=None": 1}
    assert "unique graphs, run #1 → run #2: dynamic=False 3 → 1; dynamic=None 2 → 1" in done.stdout
    again = _run(data_dir, "--apply-suggestion", "2")
    assert again.returncode == 2
    assert again.stderr.strip().endswith(
        "has no recompile that a changing input size explains (nothing to apply)"
    )
