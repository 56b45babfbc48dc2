"""A recompile a changing dim explains → the fix PyTorch suggests, as a spec (issue 40, item 3)."""

from __future__ import annotations

from dataclasses import replace

import recompilesdata as rd
from comparedata import CPU_RECOMPILES, legacy_runs

from runtime_lab import registry
from runtime_lab.recompiles.report import expect, suggest
from runtime_lab.spec import RunSpec, SpecError, build_spec


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
    assert suggest.suggestion(result, "x:0") is None  # x:0 is the only size guard that failed
    assert suggest.suggestion(replace(result, mark_dynamic="x:0,y:0")) is None
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
