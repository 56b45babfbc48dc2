"""A recompile a changing dim explains → the fix PyTorch suggests, as a spec (issue 40, item 3)."""

from __future__ import annotations

from dataclasses import replace

import recompilesdata as rd
from comparedata import CPU_RECOMPILES, legacy_runs

from runtime_lab import registry
from runtime_lab.recompiles.report import expect, suggest
from runtime_lab.spec import RunSpec, SpecError, build_spec

STANCE = suggest.STANCE


def test_the_default_modes_recompile_gives_mark_dynamic_on_the_axis_its_guard_names():
    run = legacy_runs()[CPU_RECOMPILES]
    found = registry.suggester("recompiles").for_run(run.spec, registry.load(run))
    assert (found.mode, found.call, found.mark_dynamic) == ("dynamic=None", 2, "x:0")
    assert "torch._dynamo.mark_dynamic(x, 0)" in found.explanation
    spec = RunSpec.from_dict(suggest.applied(run.spec, found))
    assert spec.option("mark_dynamic") == "x:0"
    assert run.spec["options"].get("mark_dynamic") is None  # the stored spec is left as it was


def test_marks_already_applied_are_not_suggested_again_and_new_ones_merge():
    result = replace(registry.load(legacy_runs()[CPU_RECOMPILES]), modes=(rd.auto_mode(),))
    # x:0 is the only size guard that failed: a run that marked it and still recompiled there
    # gets the stance, not the same mark again
    assert suggest.suggestion(result, "x:0").fix == f"stance {STANCE}"
    assert suggest.suggestion(replace(result, mark_dynamic="x:0,y:0")).added == ""
    found = suggest.suggestion(result, "y:1")
    assert found.mark_dynamic == "y:1,x:0" and found.added == "x:0"


def test_a_bad_mark_is_one_line_naming_what_is_allowed():
    try:
        build_spec("recompiles", "8x8", options={"mark_dynamic": "x=0"})
    except SpecError as exc:
        assert str(exc).startswith("mark_dynamic: 'x=0' is not an input:axis pair; allowed:")
    else:
        raise AssertionError("x=0 was taken")


def test_the_expectation_model_takes_the_option_s_dims_as_dynamic_in_every_mode():
    calls = [((8, 4), "float32"), ((16, 4), "float32"), ((32, 4), "float32")]
    assert expect.compiles("dynamic=False", calls, (0,)) == 3
    assert expect.compiles("dynamic=False", calls, (0,), forced=(0,)) == 1
    assert expect.compiles("dynamic=None", calls, (0,), forced=(0,)) == 1


DTYPE = "0/0: tensor 'x' dtype mismatch. expected Float, actual Half"


def _dtype_change(mode: str = "dynamic=None"):
    """The legacy CPU run's result whose one mode recompiles at call 2 for a dtype change."""
    calls = (
        rd.call(1, 512, "compile", "0/0", compile_s=1.0),
        rd.call(2, 512, "recompile", "0/1", DTYPE, compile_s=1.0),
        rd.call(3, 512, "cache hit", "0/0"),
    )
    modes = (replace(rd.auto_mode(), mode=mode, calls=calls),)
    return replace(registry.load(legacy_runs()[CPU_RECOMPILES]), modes=modes)


def test_a_recompile_no_mark_fixes_gives_the_eager_on_recompile_stance():
    run = legacy_runs()[CPU_RECOMPILES]
    found = suggest.for_run(run.spec, _dtype_change())
    assert (found.mode, found.call, found.stance, found.added) == ("dynamic=None", 2, STANCE, "")
    assert found.fix == f"stance {STANCE}"
    assert f'torch.compiler.set_stance("{STANCE}")' in found.explanation
    assert "dtype mismatch" in found.explanation
    spec = RunSpec.from_dict(suggest.applied(run.spec, found))
    assert spec.option("stance") == STANCE
    assert spec.option("mark_dynamic") == ""  # the marks left as they were


def test_a_size_recompile_still_gets_the_mark_and_a_set_stance_gets_nothing():
    result = replace(registry.load(legacy_runs()[CPU_RECOMPILES]), modes=(rd.auto_mode(),))
    found = suggest.suggestion(result)
    assert (found.stance, found.fix) == ("", "mark_dynamic x:0")  # PyTorch's fix first
    assert suggest.suggestion(_dtype_change(), stance="fail_on_recompile") is None
    assert suggest.suggestion(replace(_dtype_change(), stance=STANCE)) is None
    # the what-ifs recompile per bucket by design: no stance for the whole run from them
    assert suggest.suggestion(_dtype_change(mode="bucketed")) is None


# issue 49: the default CPU sequence, both dims of pointwise varying; the worker records which
# input axes carry each named dim
SQUARES = (256, 512, 1024, 256)
POINTWISE = ("x:0,y:0", "x:1,y:1")


def _squares(index=0, dim_axes=POINTWISE, **marked):
    """dynamic=None over 256², 512², 1024², 256²: one recompile, its guard naming `index`."""
    reason = f"0/0: tensor 'x' size mismatch at index {index}. expected 256, actual 512"
    calls = (
        rd.call(1, 256, "compile", "0/0", compile_s=1.0),
        rd.call(2, 512, "recompile", "0/1", reason, compile_s=1.0),
        rd.call(3, 1024, "cache hit", "0/1"),
        rd.call(4, 256, "cache hit", "0/1"),
    )
    return replace(
        rd.result(limited=False),
        modes=(replace(rd.auto_mode(), calls=calls),),
        sequence=tuple(f"{s}x{s}" for s in SQUARES),
        workload="pointwise",
        dim_names=("rows", "cols"),
        dim_axes=dim_axes,
        **marked,
    )


def test_one_press_marks_every_dim_the_sequence_varies_though_the_guard_names_one():
    found = suggest.suggestion(_squares())
    assert (found.mode, found.call, found.added, found.fix) == (
        "dynamic=None",
        2,
        "x:0,x:1",
        "mark_dynamic x:0,x:1",
    )
    said = found.explanation  # what the page shows before the press
    assert "because x's axis 0 changed size, rows (256 → 512)." in said
    assert "The sequence varies rows (256, 512, 1024) and cols (256, 512, 1024)" in said
    assert "torch._dynamo.mark_dynamic(x, 0) and torch._dynamo.mark_dynamic(x, 1)" in said
    assert "mark_dynamic x:0,x:1 in every mode: rows and cols dynamic" in said
    assert "(rows: x:0,y:0; cols: x:1,y:1)" in said
    spec = RunSpec.from_dict(suggest.applied(legacy_runs()[CPU_RECOMPILES].spec, found))
    assert spec.option("mark_dynamic") == "x:0,x:1"


def test_an_axis_is_named_by_the_dim_it_carries_not_by_a_dim_of_the_same_size():
    # rows already marked (the old two-press path's second run): the guard names x's axis 1
    rows = {"mark_dynamic": "x:0,y:0", "mark_dynamic_dims": (0,)}
    found = suggest.suggestion(_squares(index=1, **rows), "x:0")
    assert (found.added, found.mark_dynamic) == ("x:1", "x:0,x:1")
    assert "x's axis 1 changed size, cols (256 → 512)." in found.explanation
    assert "mark_dynamic x:0,x:1 (x:1 added) in every mode" in found.explanation
    # a run from before the axes were recorded: 256² fits both dims, so neither is named
    before = suggest.suggestion(_squares(index=1, dim_axes=(), **rows), "x:0")
    assert "x's axis 1 changed size, 256 → 512." in before.explanation
    assert before.added == "x:1"


def test_a_run_with_marks_names_its_modes_as_they_ran():
    plain, marked = _squares(), _squares(mark_dynamic="x:0,x:1,y:0,y:1", mark_dynamic_dims=(0, 1))
    assert suggest.ran_as(plain) == {"dynamic=None": "dynamic=None"}
    assert suggest.ran_as(marked) == {"dynamic=None": "dynamic=None + mark_dynamic x:0,x:1,y:0,y:1"}
    assert suggest.marks_line(plain, plain, ("run #1", "run #2")) == ""
    assert suggest.marks_line(plain, marked, ("run #1", "run #2")) == (
        "run #1 ran without marks; run #2 ran every mode with mark_dynamic x:0,x:1,y:0,y:1 "
        "(the option): a marked dynamic=False is not static shapes."
    )
    report = registry.build_report(rd.run(marked), marked)
    assert "4 calls along rows, cols, mark_dynamic x:0,x:1,y:0,y:1 in every mode: " in (
        report.headline
    )
    assert "dynamic=None + marks 2 graphs" in report.headline
    assert [m.label for m in report.metrics][0] == "dynamic=None + marks: graphs"
    assert registry.build_report(rd.run(plain), plain).metrics[0].label == "dynamic=None: graphs"
