"""Issue 41 in the report: a mode timed on a wrong answer and one not timed are named in the
headline (early and final), the verdict is never green, the figures and tables say which rule
decided and what it allowed (hand-made results, no worker)."""

from dataclasses import replace

from fusiondata import run as _run
from fusiondata import with_tolerance

from runtime_lab import registry
from runtime_lab.fusion.report import frames as ff
from runtime_lab.fusion.report.figures import figures, key_figures
from runtime_lab.report import pending

WRONG = (
    "inductor is outside tolerance against float64 (max err 0.246 > allowed 0.0937): its speed "
    "is of a wrong answer"
)
NAN = "12 of 16,777,216 output values are NaN or infinite where float64's are finite"


def test_the_headline_names_the_wrong_mode_with_its_figures_and_the_untimed_one():
    rep = registry.build_report(_run(with_tolerance()))
    assert rep.headline.endswith(f"; {WRONG}; inductor-reduce-overhead not timed: {NAN}")
    assert "3.0× faster" in rep.headline  # the speed is still shown: it is what was measured
    assert not rep.ok  # the page's box is red
    assert rep.verdict.ok is False
    assert rep.verdict.doubt == (
        "Wrong answer: inductor outside tolerance against float64; do not quote its speed. "
        "Not timed: inductor-reduce-overhead."
    )
    # the CLI's early headline: the same words before the evidence phase
    early = pending(rep)
    assert WRONG in early.headline and early.verdict.ok is False


def test_a_run_whose_modes_all_pass_names_none():
    result = with_tolerance()
    eager, inductor, _ = result.modes
    passed = replace(result, modes=(eager, replace(inductor, tolerance_passed=True)))
    rep = registry.build_report(_run(passed))
    assert "tolerance" not in rep.headline and "not timed" not in rep.headline
    assert rep.ok


def test_the_figures_tables_and_notes_say_which_rule_decided_and_what_it_allowed():
    result = with_tolerance()
    key = key_figures(result)
    assert key["outside_tolerance"] == ["inductor", "inductor-reduce-overhead"]
    assert key["max_err_fp64"]["inductor"] == 0.2461
    assert key["allowed_err_fp64"]["inductor"] == 0.0937
    assert key["tolerance_rule"] == {
        "eager": "float64 bound",
        "inductor": "float64 bound",
        "inductor-reduce-overhead": "finite output",
    }
    assert key["not_timed"] == {"inductor-reduce-overhead": NAN}
    fig = figures(result)
    modes = ff.modes_frame(result, fig.modes).set_index("mode")
    assert modes.loc["inductor", "status"] == "timed, outside tolerance"
    assert modes.loc["inductor", "steady_state_ms"] == 1.0  # timed all the same
    assert modes.loc["inductor-reduce-overhead", "status"] == "not timed"
    table = ff.evidence_table(result, fig.modes).set_index("check")
    assert table.loc["tolerance", "inductor"] == (
        "FAIL (float64 bound): max err against float64 2.46e-01 > 9.37e-02 allowed"
    )
    rep = registry.build_report(_run(result))
    note = next(n for n in rep.notes if n.startswith("inductor FAILED"))
    assert "'float64 bound'" in note and note.endswith("K = 4096 + 14336).")


def test_an_older_run_keeps_its_words():
    """A run stored before issue 41: no float64 figures in its summary, its table as it was."""
    from fusiondata import result

    old = result(reduce_overhead_tolerance=False)
    assert "outside_tolerance" not in key_figures(old)
    rep = registry.build_report(_run(old))
    assert rep.headline.endswith(
        "; inductor-reduce-overhead outside tolerance against eager: not timed"
    )
    table = ff.evidence_table(old, figures(old).modes).set_index("check")
    assert table.loc["tolerance", "inductor"] == "pass against eager, max |Δ| 2.40e-07"


def test_a_mode_that_raised_is_named_with_its_first_line():
    result = with_tolerance()
    eager, inductor, _ = result.modes
    error = "BackendCompilerFailed: backend='inductor' raised:\nRuntimeError: boom"
    raised = replace(
        inductor,
        ran=False,
        timing=None,
        tolerance_passed=None,
        tolerance_rule=None,
        error=error,
        not_timed="BackendCompilerFailed: backend='inductor' raised:",
    )
    rep = registry.build_report(_run(replace(result, modes=(eager, raised))))
    assert rep.headline.endswith(
        "no compiled mode ran; inductor not timed: BackendCompilerFailed: backend='inductor' raised:"
    )
    assert rep.verdict.doubt == "Not timed: inductor."
