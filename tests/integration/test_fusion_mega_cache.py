"""The mega-cache scenario: portable compile caches saved by one fresh process, loaded by another."""

from dataclasses import replace

import pandas as pd
from fusiondata import COLD
from fusiondata import result as _result
from fusiondata import run as _run

from runtime_lab import registry
from runtime_lab.fusion.report import charts as charts_fusion
from runtime_lab.fusion.report import compare as fusion_compare
from runtime_lab.fusion.report import frames as ff
from runtime_lab.fusion.report.figures import figures, key_figures
from runtime_lab.glossary import registry as glossary
from runtime_lab.registry import result_from_record
from runtime_lab.results import CompileLatency, to_plain
from runtime_lab.spec import build_spec

FRESH = CompileLatency("fresh-process", 21.0, detail="process start to exit 21.0 s: ...")
MEGA = CompileLatency(
    "mega-cache",
    6.5,
    dynamo_s=1.5,
    aot_s=1.0,
    fx_cache_hits=1,
    aot_cache_hits=1,
    compiles=1,
    artifact_bytes=157_193,
    detail="process B ... load_cache_artifacts 2.09 s ...; FX graph cache hit. Artefact 157193 bytes",
)
UNMEASURED = CompileLatency("mega-cache", None, detail="needs torch ≥ 2.7 (…); this is 2.6.0")


def _with(*extra: CompileLatency):
    result = _result()
    modes = tuple(
        replace(m, compile=(*m.compile, *extra)) if m.mode == "inductor" else m
        for m in result.modes
    )
    return replace(result, modes=modes)


def test_a_stored_mega_cache_row_renders_in_frames_charts_report_and_compare():
    result = _with(FRESH, MEGA)
    frame = ff.compile_frame(result)
    mega = frame[frame["scenario"] == "mega-cache"]
    assert not mega.empty and set(mega["artifact_bytes"]) == {157_193}
    table = ff.compile_table(ff.compile_frame(result)).set_index("scenario")
    assert table.loc["mega-cache", "artifact"] == "154 KiB"
    assert table.loc["mega-cache", "fx_cache_hits"] == 1
    assert pd.isna(table.loc["cold", "artifact"])
    assert list(table.index).index("fresh-process") < list(table.index).index("mega-cache")
    evidence = ff.evidence_table(result, figures(result).modes).set_index("check")
    row = evidence.loc["mega-cache (saved, loaded in a fresh process)", "inductor"]
    assert row == "6.50 s load + compile (hit), 154 KiB"
    assert "mega-cache 1, 1" in evidence.loc["compiles, FX cache hits", "inductor"]
    spec = charts_fusion.compile_chart(frame).to_dict()
    assert "inductor · mega-cache" in spec["layer"][0]["encoding"]["y"]["sort"]

    rep = registry.build_report(_run(result))
    note = next(n for n in rep.notes if n.startswith("inductor · mega-cache"))
    assert "154 KiB" in note and "hit Inductor's FX graph cache" in note and "10 s cold" in note
    compile_table = dict(rep.tables)["Compile latency (own seconds per phase)"]
    assert "artifact" in compile_table.columns

    key = key_figures(result)
    assert key["mega_cache_s"] == 6.5 and key["mega_cache_artifact_bytes"] == 157_193
    assert "mega_cache_s" not in key_figures(_result())  # older runs keep their summary
    # the compare stage: cold before warm, mega-cache after fresh-process
    first = fusion_compare._compile(result)
    order = fusion_compare._compile_order(first)
    assert order.index("inductor · fresh-process") < order.index("inductor · mega-cache")
    assert ff.SCENARIO_ORDER.index("mega-cache") == ff.SCENARIO_ORDER.index("fresh-process") + 1
    assert glossary.find("fusion", "mega_cache_s").unit == "s"


def test_a_miss_and_an_unmeasured_row_say_so_without_a_zero():
    missed = replace(MEGA, fx_cache_hits=0, fx_cache_misses=1, aot_cache_hits=0)
    rep = registry.build_report(_run(_with(missed)))
    note = next(n for n in rep.notes if n.startswith("inductor · mega-cache"))
    assert "did NOT hit" in note and "C++ compiler" not in note
    rep = registry.build_report(_run(replace(_with(MEGA), device="cpu")))
    assert any("mega-cache" in n and "still runs the C++ compiler" in n for n in rep.notes)

    result = _with(UNMEASURED)
    table = ff.compile_table(ff.compile_frame(result)).set_index("scenario")
    assert "needs torch ≥ 2.7" in table.loc["mega-cache", "detail"]
    assert table.loc["mega-cache"].isna()["first_call_s"]  # blank, not 0 s
    chart = charts_fusion.compile_chart(ff.compile_frame(result)).to_dict()
    assert "inductor · mega-cache" not in chart["layer"][0]["encoding"]["y"]["sort"]
    rep = registry.build_report(_run(result))
    assert any("needs torch ≥ 2.7" in n for n in rep.notes)
    for _, drawn in rep.charts:
        assert drawn.to_dict()
    assert fusion_compare._compile(result)["scenario"].tolist().count("mega-cache") == 0
    assert key_figures(result)["mega_cache_s"] is None


def _draw(run):
    from runtime_lab import ui

    ui.draw(run)


def test_the_page_draws_the_mega_cache_row():
    from streamlit.testing.v1 import AppTest

    run = _run(_with(FRESH, MEGA))
    run["env"] = {}
    at = AppTest.from_function(_draw, args=(run,), default_timeout=30)
    at.run()
    assert not at.exception, at.exception
    shown = [df.value for df in at.dataframe]
    rows = [f for f in shown if "scenario" in f.columns and "mega-cache" in set(f["scenario"])]
    assert rows and "154 KiB" in set(rows[0]["artifact"])


def test_an_old_result_without_artifact_bytes_still_rebuilds():
    plain = to_plain(_with(FRESH))
    for mode in plain["modes"]:
        for c in mode["compile"]:
            del c["artifact_bytes"]  # as a run recorded before the field existed
    rebuilt = result_from_record("fusion", plain)
    inductor = next(m for m in rebuilt.modes if m.mode == "inductor")
    assert [c.scenario for c in inductor.compile] == [
        "cold",
        "warm-cache",
        "warm-process",
        "fresh-process",
    ]
    assert all(c.artifact_bytes is None for c in inductor.compile)
    assert inductor.compile[0] == COLD
    assert "artifact" not in ff.compile_table(ff.compile_frame(rebuilt)).columns


def test_without_the_api_the_row_says_which_torch_it_needs(monkeypatch):
    import subprocess

    import torch

    from runtime_lab.fusion.run import fresh_process as run_fresh

    monkeypatch.delattr(torch.compiler, "save_cache_artifacts")

    def no_process(*args, **kwargs):
        raise AssertionError("no process should start without the API")

    monkeypatch.setattr(subprocess, "run", no_process)
    spec = build_spec("fusion", "64x64", device="cpu")
    row = run_fresh.mega_cache_latency("inductor", spec, torch.device("cpu"))
    assert row.scenario == "mega-cache" and row.first_call_s is None
    assert row.detail.startswith("needs torch ≥ 2.7") and torch.__version__ in row.detail
    assert row.artifact_bytes is None and row.fx_cache_hits == 0


# The real CPU job (a fresh process, then the mega-cache saved in one and loaded in another) is
# tests/integration/test_fusion_worker.py's module run: one worker and one compile for both.
