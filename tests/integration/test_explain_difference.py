"""Issue 40 on the pages and the CLI: the kernel diff in compare, and a recompile's suggested fix
applied with one click (AppTest, replay pool) or --apply-suggestion (two real tiny CPU runs)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from apphelpers import open_page, poll_until, widget
from comparedata import fusion_mode_pair

from runtime_lab import ui
from runtime_lab.ui.suggest import BUTTON

ROOT = Path(__file__).resolve().parents[2]


def test_the_history_compare_shows_the_kernel_diff_under_the_differing_modes(app):
    a, b = fusion_mode_pair(ui.manager().history)
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
    a, b = fusion_mode_pair(History(data_dir / "history.sqlite3"))
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


def _applied(data_dir, tmp_path, run_id: int) -> tuple[dict, str]:
    """`--apply-suggestion RUN_ID --json`: the JSON's apply_suggestion, and what it printed."""
    out = tmp_path / f"after-{run_id}.json"
    done = _run(data_dir, "--apply-suggestion", str(run_id), "--json", str(out))
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text())["apply_suggestion"], done.stdout


def test_apply_suggestion_marks_the_dim_then_sets_the_stance_with_no_more_graphs(
    data_dir, tmp_path
):
    # x's dim 0 grows 8 → 32, then the last call changes dtype: a recompile no mark fixes
    first = _run(
        data_dir,
        *("--shapes", "8x4,16x4,32x4,8x4:float16", "--device", "cpu"),
        *("--warmup", "1", "--repeat", "3", "--backend", "eager", "--bucket", "off"),
        *("--graph-break", "off", "--compile-trace", "false"),
        *("--modes", "dynamic=False,dynamic=None"),
    )
    assert first.returncode == 0, first.stderr
    applied, printed = _applied(data_dir, tmp_path, 1)
    assert (applied["from_run"], applied["fix"], applied["applied"]) == (
        1,
        "mark_dynamic x:0",
        "x:0,y:0",
    )
    assert (applied["mark_dynamic"], applied["stance"], applied["applied_stance"]) == (
        "x:0",
        None,
        "default",
    )
    graphs = applied["unique_graphs"]
    assert graphs["before"] == {"dynamic=False": 4, "dynamic=None": 3}
    assert graphs["after"] == {"dynamic=False": 2, "dynamic=None": 2}  # the dtype's recompile
    assert "unique graphs, run #1 → run #2: dynamic=False 4 → 2; dynamic=None 3 → 2" in printed
    applied, printed = _applied(data_dir, tmp_path, 2)
    assert (applied["fix"], applied["stance"], applied["applied_stance"]) == (
        "stance eager_on_recompile",
        "eager_on_recompile",
        "eager_on_recompile",
    )
    assert applied["applied"] == "x:0,y:0"  # the marks kept
    assert "dtype mismatch" in applied["reason"] and applied["call"] == 4
    assert applied["unique_graphs"]["after"] == {"dynamic=False": 1, "dynamic=None": 1}
    assert "unique graphs, run #2 → run #3: dynamic=False 2 → 1; dynamic=None 2 → 1" in printed
    again = _run(data_dir, "--apply-suggestion", "3")
    assert again.returncode == 2
    assert again.stderr.strip().endswith(
        "has no recompile that a mark or a stance would fix (nothing to apply)"
    )
