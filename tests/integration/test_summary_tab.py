"""Issue 37: each experiment's default report reads on one screen: its Summary tab holds a
chart, at most 150 words of prose outside the collapsed Notes, and only glossary-labelled
figures; the page's intro folds away once a report is shown (AppTest, replayed runs)."""

from __future__ import annotations

import re

import pytest
from apphelpers import open_page, poll_until
from streamlit.testing.v1.element_tree import Expander, Markdown

from runtime_lab.glossary import registry as glossary
from runtime_lab.view.summary import PROSE_WORDS, words

EXPERIMENTS = ("fusion", "recompiles", "streams", "allocator")


def _glossary_label(experiment: str, label: str) -> bool:
    """Whether `label` is a glossary label of the experiment, a `{}` standing for any name."""
    for found in glossary.figures(experiment):
        parts = map(re.escape, found.label.split("{}"))
        if re.fullmatch("(.+)".join(parts), label):
            return True
    return False


def _prose(node) -> list[str]:
    """The markdown and caption text a reader sees in `node`, the collapsed Notes left out."""
    if isinstance(node, Expander) and node.label == "Notes":
        return []
    if isinstance(node, Markdown):  # captions too
        return [node.value]
    return [text for child in getattr(node, "children", {}).values() for text in _prose(child)]


def _summary(at):
    return next((t for t in at.tabs if t.label == "Summary"), None)


@pytest.mark.parametrize("experiment", EXPERIMENTS)
def test_the_summary_tab_fits_one_screen(app, experiment):
    at = open_page(app, f"app_pages/{experiment}.py")
    at.button[0].click()  # the form's defaults, answered from the recorded CPU run
    at.run()
    poll_until(at, lambda a: _summary(a) is not None, timeout_s=30)
    summary = _summary(at)
    assert summary.get("arrow_vega_lite_chart") or summary.get("vega_lite_chart"), experiment
    prose = _prose(summary)
    assert words(prose) <= PROSE_WORDS, (words(prose), prose)
    labels = [re.sub(r"\\(.)", r"\1", m.label) for m in summary.metric]  # md()'s escapes off
    assert 0 < len(labels) <= 8, labels
    assert all(_glossary_label(experiment, label) for label in labels), labels
    notes = [e for e in summary.expander if e.label == "Notes"]
    assert notes and not notes[0].proto.expanded  # the rest is one click away, collapsed
    # the workload's caption is folded away now that the report holds the screen (the page's
    # intro stays: folding it moved the form, and the browser showed two forms for a moment)
    assert any(e.label.startswith("About ") for e in at.expander)


def _grid(metrics):
    from runtime_lab.ui.report import _metrics

    _metrics(metrics)


def test_a_row_with_one_long_label_puts_every_label_of_that_row_above_its_value():
    """A label too long for its quarter of the page wraps in a caption above the metric; the
    rest of its row does the same, so the row's values stay on one line (the H100 fwd_bwd run's
    'inductor saved for backward' sat lower than its neighbours), and other rows keep theirs."""
    from streamlit.testing.v1 import AppTest

    from runtime_lab.report import Metric

    short = [Metric(f"figure {i}", f"{i} ms") for i in range(4)]
    long = [Metric("eager saved for backward", "96 MiB"), Metric("x" * 27, "32 MiB")]
    long += [Metric("cold compile", "1.6 s"), Metric("warm-cache compile", "89 ms")]
    at = AppTest.from_function(_grid, args=(short + long,), default_timeout=30).run()
    shown = {m.label: m.proto.label_visibility.value for m in at.metric}
    above = {label for label, seen in shown.items() if seen != shown["figure 0"]}
    assert above == {m.label for m in long}  # collapsed: the caption above says the label
    assert {c.value for c in at.caption} == above
