"""Recompiles over a catalog workload: sequences along named dims, presets, dims, expectations."""

import pytest
from recompilesdata import rms_norm_result
from recompilesdata import run as as_run

from runtime_lab.cli.main import _spec_from, build_parser
from runtime_lab.recompiles.report import build as recompiles_report
from runtime_lab.recompiles.report import expect
from runtime_lab.recompiles.report import workload as rw
from runtime_lab.recompiles.report.frames import calls_frame
from runtime_lab.registry import summary
from runtime_lab.shapes import PRESETS, growing, parse_sequence, varying
from runtime_lab.spec import SpecError, build_spec
from runtime_lab.workloads.registry import WORKLOADS
from runtime_lab.workloads.sequence import form_presets, presets_of, starting_sequence

SQUARES = "512x512,1024x1024,2048x2048,3000x3000,4096x4096,512x512"


def _spec(**options):
    return build_spec("recompiles", None, device="cpu", options=options)


def _problems(**options) -> dict[str, str]:
    with pytest.raises(SpecError) as info:
        _spec(**options)
    return info.value.problems


def test_growing_tokens_doubles_the_first_dynamic_dim_of_the_default_shape():
    spec = _spec(workload="rms_norm", shapes="growing-tokens")
    assert spec.option("shapes") == "512x4096,1024x4096,2048x4096,4096x4096"
    assert spec.option("dims") == "0"  # auto: tokens, the dim the sequence varies
    assert spec.shape == (512, 4096)  # the run records the sequence's first shape


def test_varying_seq_for_attention_changes_seq_alone():
    spec = _spec(workload="attention", shapes="varying-seq")
    shapes = [s for s, _ in parse_sequence(spec.option("shapes"))]
    assert {(s[0], s[1], s[3]) for s in shapes} == {(1, 32, 128)}
    assert [s[2] for s in shapes] == varying(4096) == [2048, 1229, 3072, 4096, 1229, 512]
    assert spec.option("dims") == "2"


def test_small_dims_grow_from_their_size_and_lab_presets_stay_for_two_dims():
    assert growing(4096) == [512, 1024, 2048, 4096] and growing(1) == [1, 2, 4, 8]
    assert set(PRESETS) <= set(presets_of(WORKLOADS["softmax"]))
    attention = presets_of(WORKLOADS["attention"])
    assert "squares" not in attention and list(attention)[:2] == ["growing-seq", "varying-seq"]
    assert attention["growing-batch"][1](0).startswith("1x32x4096x128,2x32x4096x128")
    # the form's presets are sized as the form is: the CPU shape without a GPU
    assert starting_sequence("rms_norm", full=False) == "128x1024,256x1024,512x1024,1024x1024"
    assert form_presets(None, False) is PRESETS


@pytest.mark.parametrize(
    ("dims", "canonical"),
    [("seq", "2"), ("seq, batch", "0,2"), ("2,0", "0,2"), ("SEQ", "2"), ("auto", "2")],
)
def test_dims_take_names_or_indices(dims, canonical):
    assert _spec(workload="attention", shapes="varying-seq", dims=dims).option("dims") == canonical


def test_the_seed_keeps_its_defaults_exactly():
    spec = _spec()
    assert spec.option("workload") == "pointwise" and spec.option("dims") == "0,1"
    assert spec.option("shapes") == SQUARES
    for name in PRESETS:  # every old preset still runs for pointwise
        assert _spec(shapes=name).option("shapes")
    # nothing varies (a dtype change): auto falls back to the declared dynamic dims (rows)
    assert _spec(shapes="dtype-change").option("dims") == "0"


@pytest.mark.parametrize(
    ("options", "field", "said"),
    [
        (
            {"workload": "rms_norm", "shapes": "512x4096,8x8x8"},
            "shapes",
            "shape 2 ('8x8x8') has 3 dims; rms_norm takes 2 per shape: tokens × hidden",
        ),
        (
            {"workload": "attention", "shapes": "squares"},
            "shapes",
            "is not a preset (growing-seq, varying-seq, growing-batch",
        ),
        ({"shapes": "64x32,8"}, "shapes", "pointwise takes 2 per shape: rows × cols"),
        (
            {"workload": "rms_norm", "shapes": "growing-tokens", "dims": "seq"},
            "dims",
            "'seq' is not a dim of rms_norm; allowed: auto, or names or indices of tokens (0)",
        ),
        ({"workload": "rms_norm", "dims": "2"}, "dims", "is not a dim of rms_norm"),
        ({"workload": "rms_norm", "dims": " , "}, "dims", "nothing chosen"),
    ],
)
def test_bad_sequences_and_dims_are_one_message_naming_the_workload(options, field, said):
    problems = _problems(**options)
    assert set(problems) == {field}, problems
    assert said in problems[field] and "\n" not in problems[field]


def test_the_main_shape_is_ignored_and_a_bad_workload_is_its_own_message():
    assert _spec(workload="rms_norm", shapes="8x8").shape == (8, 8)
    assert build_spec("recompiles", "not a shape", options={"workload": "softmax"}).shape
    assert set(_problems(workload="nope")) == {"workload"}


def test_the_model_expects_the_seeds_counts():
    calls = [(tuple(map(int, e.split("x"))), "float32") for e in SQUARES.split(",")]
    counts = {m: expect.compiles(m, calls, (0, 1)) for m in expect.STATIC + expect.MARKS}
    assert counts["dynamic=False"] == 5 and counts["mark_dynamic"] == 1
    assert expect.compiles("dynamic=None", calls, ()) == 2
    assert expect.compiles("dynamic=True", calls, ()) == 1
    tokens = [((n, 4096), "float32") for n in growing(4096)]
    assert expect.compiles("mark_dynamic", tokens, (1,)) == 2  # hidden marked, tokens change
    ones = [((64, 64), "float32"), ((128, 128), "float32"), ((1, 64), "float32")]
    assert expect.compiles("mark_dynamic", ones, (0, 1)) == 2  # size 1: its own graph
    assert expect.compiles("mark_unbacked", ones, (0, 1)) == 1
    dtypes = [((8, 8), "float32"), ((16, 8), "float32"), ((16, 8), "float16")]
    assert expect.frames("dynamic=None", dtypes, ()) == [0, 1, 2]


def test_the_report_names_the_workload_its_dims_and_what_to_expect():
    result = rms_norm_result()
    report = recompiles_report.build(as_run(result), result)
    assert report.headline.startswith(
        "recompiles rms_norm (tokens × hidden) cuda:0 inductor, 4 calls along tokens: "
        "dynamic=False 4 graphs · dynamic=None 2 graphs · mark_dynamic 1 graph"
    )
    said = "\n".join(report.notes)
    assert (
        "rms_norm under dynamic=None: 2 compiles for 4 calls (tokens: 4 sizes): call 2 made "
        "tokens dynamic, hidden stays static. As expected" in said
    )
    assert (
        "rms_norm under mark_dynamic: 1 compile for 4 calls (tokens: 4 sizes) with tokens" in said
    )
    metrics = {m.label: m.value for m in report.metrics}
    assert metrics["workload · marked dims"] == "rms_norm (tokens × hidden; marked: tokens)"
    titles = dict(report.tables)
    calls = titles["Calls of rms_norm (tokens × hidden)"]
    assert list(calls["changed"][:2]) == ["", "tokens 512 → 1024"]
    key = summary(as_run(result), result=result)
    assert key["workload"] == "rms_norm" and key["marked_dims"] == ["tokens"]


def test_a_count_off_the_rules_says_so():
    result = rms_norm_result(auto_compiles=3)
    line = next(n for n in rw.notes(result, _figures(result)) if "dynamic=None" in n)
    assert "Not what the seed's rules give (2:" in line and "read the recompile reasons" in line


def _figures(result):
    from runtime_lab.recompiles.report.figures import figures

    return figures(result)


def test_a_run_from_before_the_catalog_draws_as_before():
    from recompilesdata import result

    old = result()
    report = recompiles_report.build(as_run(old), old)
    assert report.headline.startswith("recompiles cuda:0 inductor, 6 calls: dynamic=False 5")
    assert "Calls" in dict(report.tables) and "changed" not in calls_frame(old)
    assert not any(m.label.startswith("workload") for m in report.metrics)
    assert "workload" not in summary(as_run(old), result=old)


def test_the_cli_takes_a_workload_and_named_dims():
    args = build_parser().parse_args(
        ["run", "recompiles", "--workload", "softmax", "--shapes", "growing-rows"]
        + ["--dims", "rows", "--backend", "eager"]
    )
    spec = _spec_from(args)
    assert spec.option("workload") == "softmax" and spec.option("dims") == "0"
    assert spec.option("shapes") == "4096x4096,8192x4096,16384x4096,32768x4096"
