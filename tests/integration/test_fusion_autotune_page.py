"""Max-autotune's choices on the page (AppTest): the table and chart in the Kernels tab when a mode
recorded them, one line saying why not otherwise (session 12's H100 figures)."""

from __future__ import annotations

import fusiondata
from streamlit.testing.v1 import AppTest

from runtime_lab.fusion.report import autotune as ra
from runtime_lab.view.text import markdown as md


def _draw(run):
    from runtime_lab import ui

    ui.draw(run)


def _page(result) -> AppTest:
    run = fusiondata.run(result)
    run["env"] = {}
    at = AppTest.from_function(_draw, args=(run,), default_timeout=30)
    at.run()
    assert not at.exception, at.exception
    return at


def _titles(tab) -> list[str]:
    return [m.value.strip("*") for m in tab.markdown if m.value.startswith("**")]


def _autotune_captions(at: AppTest) -> list[str]:
    return [c.value for c in at.caption if c.value.startswith("Autotune")]


def test_the_kernels_tab_shows_the_choices_table_and_chart():
    at = _page(fusiondata.with_autotune())
    kernels = {t.label: t for t in at.tabs}["Kernels"]
    titles = _titles(kernels)
    assert {md(ra.OPS_TITLE), md(ra.CHOICES_TITLE), md(ra.CHART_TITLE)} <= set(titles)
    frames = [d.value for d in kernels.dataframe]
    choices = next(f for f in frames if "pct_of_winner" in f.columns)
    assert list(choices["choice"]) == ["mm", "triton_mm_58", "triton_mm_57"]
    assert list(choices["winner"]) == [True, False, False]
    ops = next(f for f in frames if "triton_vs_extern_words" in f.columns)
    assert list(ops["triton_vs_extern_words"]) == ["best Triton 1.19× slower than best extern"]
    [line] = _autotune_captions(at)
    assert "mm (extern) won at 0.5843 ms of 3 choices" in line
    assert ra.NEEDS not in [c.value for c in at.caption]


def test_without_cuda_one_line_says_why_and_nothing_else_shows():
    at = _page(fusiondata.with_autotune(device="cpu"))
    assert _autotune_captions(at) == [md(ra.NEEDS, lines=True)]
    titles = [t for tab in at.tabs for t in _titles(tab)]
    assert not any(t.startswith("Autotune") for t in titles)
