"""Max-autotune's choices in the fusion report: frames, the chart, words, key figures, the tab,
and the one line where there are none (session 12's H100 figures, tests/helpers/fusiondata.py)."""

from dataclasses import replace

import fusiondata
import pytest
from fusiondata import DOWN_PROJ, TUNED

from runtime_lab import registry
from runtime_lab.compare import comparison
from runtime_lab.compare.table import flatten
from runtime_lab.fusion.report import autotune as ra
from runtime_lab.fusion.report.figures import key_figures
from runtime_lab.fusion.result import Autotune, AutotuneOp, FusionResult
from runtime_lab.record import Run
from runtime_lab.report import tab_of
from runtime_lab.results import from_plain, to_plain

CACHED = "autotune results came from cache: no choices benchmarked in this job"


def test_the_choices_frame_ranks_each_choice_with_its_config():
    frame = ra.choices_frame(fusiondata.with_autotune())
    assert list(frame["choice"]) == ["mm", "triton_mm_58", "triton_mm_57"]
    assert list(frame["rank"]) == [1, 2, 3] and list(frame["winner"]) == [True, False, False]
    assert set(frame["op"]) == {DOWN_PROJ} and set(frame["mode"]) == {TUNED}
    # the winner's time ÷ each time, as Inductor prints it (84.2 %, 76.7 %)
    assert frame["pct_of_winner"].round(1).tolist() == [100.0, 84.3, 76.7]
    tuned = frame.iloc[1]
    assert (tuned["BLOCK_M"], tuned["BLOCK_N"], tuned["BLOCK_K"]) == ("128", "128", "64")
    assert (tuned["num_stages"], tuned["num_warps"], tuned["GROUP_M"]) == ("5", "8", "8")
    assert frame.iloc[0][list(ra.CONFIG_KEYS)].isna().all()  # cuBLAS has no config


def test_the_op_row_puts_the_best_triton_against_the_best_extern():
    [row] = ra.ops_frame(fusiondata.with_autotune()).to_dict("records")
    assert (row["winner"], row["winner_kind"], row["winner_ms"]) == ("mm", "extern", 0.5843)
    assert (row["best_triton"], row["best_extern"]) == ("triton_mm_58", "mm")
    assert row["triton_vs_extern"] == pytest.approx(0.6935 / 0.5843)
    assert row["triton_vs_extern_words"] == "best Triton 1.19× slower than best extern"
    assert (row["choices"], row["autotune_s"], row["benchmarked"]) == (3, 0.8154, True)


@pytest.mark.parametrize(
    ("ratio", "said"),
    [
        (0.8, "best Triton 1.25× faster than best extern"),
        (1.0001, "as fast as best extern"),
        (None, "—"),
    ],
)
def test_the_ratio_in_words(ratio, said):
    assert ra.ratio_words(ratio) == said


def test_an_op_without_a_triton_or_extern_choice_has_no_ratio():
    op = fusiondata.autotune_op()
    only = AutotuneOp(op.op, tuple(c for c in op.choices if c.kind == "triton"))
    result = fusiondata.with_autotune(Autotune((only,)))
    [row] = ra.ops_frame(result).to_dict("records")
    assert row["best_extern"] is None and row["triton_vs_extern"] is None
    assert "triton_vs_extern" not in key_figures(result)


def test_the_chart_is_a_bar_per_choice_a_panel_per_op_the_winner_outlined():
    spec = ra.choices_chart(ra.choices_frame(fusiondata.with_autotune())).to_dict()
    assert spec["facet"]["row"]["field"] == "panel"
    assert spec["resolve"]["scale"] == {"x": "independent", "y": "independent"}
    encoding = spec["spec"]["encoding"]
    assert (encoding["x"]["field"], encoding["y"]["field"]) == ("time_ms", "choice")
    assert encoding["stroke"]["condition"] == {"test": "datum.winner", "value": "#000000"}
    assert encoding["color"]["scale"]["domain"] == ["extern", "triton", "other"]
    [rows] = spec["datasets"].values()
    assert [r["choice"] for r in rows] == ["mm", "triton_mm_58", "triton_mm_57"]
    assert {r["panel"] for r in rows} == {f"{TUNED} · {DOWN_PROJ}"}


def test_the_note_says_who_won_by_how_much_and_how_long_it_took():
    result = fusiondata.with_autotune()
    [line] = ra.notes(result)
    assert line == (
        f"Autotune, {TUNED} · {DOWN_PROJ}: mm (extern) won at 0.5843 ms of 3 choices; "
        "best Triton triton_mm_58 0.6935 ms vs best extern mm 0.5843 ms: best Triton 1.19× "
        "slower than best extern; benchmarked in 0.82 s."
    )
    cached = replace(fusiondata.autotune_op(), benchmarked=False, autotune_s=None)
    result = fusiondata.with_autotune(Autotune((cached,)))
    [line] = ra.notes(result)
    assert line.endswith(f"({ra.CACHED}).") and "benchmarked in" not in line


def _without_max_autotune() -> FusionResult:
    return fusiondata.with_catalog("swiglu_mlp")  # CUDA: eager, inductor, reduce-overhead


@pytest.mark.parametrize(
    "result",
    [fusiondata.with_autotune(device="cpu"), _without_max_autotune()],
    ids=["cpu", "no-max-autotune"],
)
def test_without_cuda_or_max_autotune_one_line_and_nothing_else(result):
    views = ra.views(result)
    assert views.notes == (ra.NEEDS,) and views.tables == () and views.charts == ()
    assert not any("autotune" in key or "triton_vs" in key for key in key_figures(result))


def test_a_mode_that_benchmarked_nothing_says_why():
    note = f"{CACHED} (Inductor's FX graph cache served the compile)"
    result = fusiondata.with_autotune(Autotune(note=note))
    views = ra.views(result)
    assert views.notes == (f"Autotune, {TUNED}: {note}.",) and views.tables == ()
    assert key_figures(result)["autotune_note"] == {TUNED: note}
    assert key_figures(result)["autotune"] == []


def test_an_older_cuda_run_of_max_autotune_says_it_was_not_recorded():
    result = fusiondata.with_autotune()
    old = replace(result, modes=(*result.modes[:2], replace(result.modes[2], autotune=None)))
    assert ra.views(old).notes == (f"Autotune, {TUNED}: {ra.NOT_RECORDED}.",)


def test_the_report_shows_the_table_and_chart_in_the_kernels_tab():
    report = registry.build_report(fusiondata.run(fusiondata.with_autotune()))
    tables = dict(report.tables)
    assert list(tables[ra.OPS_TITLE]["winner"]) == ["mm"]
    assert list(tables[ra.CHOICES_TITLE]["choice"]) == ["mm", "triton_mm_58", "triton_mm_57"]
    assert ra.CHART_TITLE in dict(report.charts)
    for title, kind in (
        (ra.OPS_TITLE, "table"),
        (ra.CHOICES_TITLE, "table"),
        (ra.CHART_TITLE, "chart"),
    ):
        assert tab_of(report, title, kind) == "Kernels"
    assert sum(n.startswith("Autotune, ") for n in report.notes) == 1
    cpu = registry.build_report(fusiondata.run(fusiondata.with_autotune(device="cpu")))
    assert ra.OPS_TITLE not in dict(cpu.tables) and ra.CHART_TITLE not in dict(cpu.charts)
    assert [n for n in cpu.notes if "utotune choices" in n or n.startswith("Autotune")] == [
        ra.NEEDS
    ]


def test_the_runs_json_lists_each_op_with_its_choices_and_compare_gets_the_figures():
    figures = key_figures(fusiondata.with_autotune())
    [op] = figures["autotune"]
    assert (op["mode"], op["op"], op["winner"], op["best_triton"]) == (
        TUNED,
        DOWN_PROJ,
        "mm",
        "triton_mm_58",
    )
    assert [(c["choice"], c["kind"], c["time_ms"], c["winner"]) for c in op["choices"]] == [
        ("mm", "extern", 0.5843, True),
        ("triton_mm_58", "triton", 0.6935, False),
        ("triton_mm_57", "triton", 0.7616, False),
    ]
    flat = flatten(figures)
    assert flat[f"autotune_s.{TUNED}.{DOWN_PROJ}"] == 0.8154
    assert flat[f"triton_vs_extern.{TUNED}.{DOWN_PROJ}"] == pytest.approx(1.1869, abs=1e-4)


def test_the_choices_survive_storage_and_an_older_run_loads_without_them():
    result = fusiondata.with_autotune()
    plain = to_plain(result)
    assert from_plain(FusionResult, plain) == result
    for mode in plain["modes"]:
        mode.pop("autotune")
    assert all(m.autotune is None for m in from_plain(FusionResult, plain).modes)


def test_compare_puts_two_runs_autotune_figures_side_by_side_with_the_glossarys_words():
    first = fusiondata.run(fusiondata.with_autotune())
    second = {**fusiondata.run(fusiondata.with_autotune()), "id": 8}
    long = comparison.figures([Run.of(first), Run.of(second)])
    rows = long[long["key"] == f"triton_vs_extern.{TUNED}.{DOWN_PROJ}"]
    assert list(rows["run"]) == ["#7", "#8"]
    assert set(rows["figure"]) == {f"{TUNED} best Triton ÷ best extern (cuBLAS) time, {DOWN_PROJ}"}
    seconds = long[long["key"] == f"autotune_s.{TUNED}.{DOWN_PROJ}"]
    assert (set(seconds["unit"]), set(seconds["better"])) == ({"s"}, {"lower"})


def test_an_op_whose_seconds_were_not_printed_says_no_seconds():
    op = replace(fusiondata.autotune_op(), autotune_s=None, precompile_s=None)
    [line] = ra.notes(fusiondata.with_autotune(Autotune((op,))))
    assert line.endswith("best Triton 1.19× slower than best extern.") and "nan" not in line
