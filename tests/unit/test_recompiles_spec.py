"""Shape sequences: the parser, presets, bucketing, and the recompiles spec and CLI flags."""

import pytest

from runtime_lab.cli.main import build_parser
from runtime_lab.registry import EXPERIMENTS
from runtime_lab.shapes import (
    MAX_ENTRIES,
    PRESETS,
    bucket,
    canonical,
    parse_sequence,
    preset,
)
from runtime_lab.spec import RunSpec, SpecError, build_spec

ISSUE = "512x512,1024x1024,2048x2048,3000x3000,4096x4096,512x512"


@pytest.mark.parametrize(
    ("text", "entries"),
    [
        ("512x512", [((512, 512), None)]),
        ("512x512, 1024x1024", [((512, 512), None), ((1024, 1024), None)]),
        ("8x16;32\n4x4x4", [((8, 16), None), ((32,), None), ((4, 4, 4), None)]),
        ("512x512:float16", [((512, 512), "float16")]),
        (
            "512x512:fp16,2x2:BF16,3:half",
            [((512, 512), "float16"), ((2, 2), "bfloat16"), ((3,), "float16")],
        ),
        (" 8 x 8 : float32 ,", [((8, 8), "float32")]),
        (["4x4", "8x8:float16"], [((4, 4), None), ((8, 8), "float16")]),
    ],
)
def test_sequence_forms(text, entries):
    assert parse_sequence(text) == entries


def test_canonical_text_spells_dtypes_out_and_keeps_order():
    assert canonical(" 8x8 ; 4x4:fp16\n8x8") == "8x8,4x4:float16,8x8"
    assert canonical(ISSUE) == ISSUE


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "is empty"),
        (" , ; ", "is empty"),
        ("512x512,abc", "shape 2 ('abc')"),
        ("512x512,0x4", "≤ 0"),
        ("1x2x3x4x5", "5 dimensions"),
        ("512x512:int8", "dtype 'int8' is not supported; allowed: float32, bfloat16, float16"),
        ("1.5x2", "not a positive integer"),
        (",".join(["8x8"] * (MAX_ENTRIES + 1)), f"more than {MAX_ENTRIES} shapes"),
        ("growing-batch," * 4, f"more than {MAX_ENTRIES} shapes"),
        ("random:x", "seed must be a whole number"),
        ("squares:3", "only random takes a seed"),
        ("nonsense", "is not a preset (squares, growing-batch"),
        ("8" * 5000, "characters long"),
    ],
)
def test_bad_sequences_say_what_is_allowed(text, fragment):
    with pytest.raises(ValueError) as info:
        parse_sequence(text)
    assert fragment in str(info.value)


def test_entry_messages_use_the_sequence_syntax():
    with pytest.raises(ValueError) as info:
        parse_sequence("4x4,x")
    message = str(info.value)
    assert "joined by x" in message and "4096,4096" not in message  # commas split entries here


def test_every_preset_parses_within_the_bound():
    for name in PRESETS:
        entries = parse_sequence(preset(name, seed=3))
        assert 1 <= len(entries) <= MAX_ENTRIES, name
        assert parse_sequence(name) == entries or name == "random"


def test_preset_contents():
    assert preset("squares") == ISSUE
    batch = parse_sequence("growing-batch")
    assert len({s for s, _ in batch}) == 10 and all(s[1] == 1024 for s, _ in batch)
    alternating = [s for s, _ in parse_sequence("alternating")]
    assert alternating[:4] == [(512, 512), (1024, 1024), (512, 512), (1024, 1024)]
    assert all(s[0] & (s[0] - 1) for s, _ in parse_sequence("odd-sizes"))  # none a power of 2
    assert all(not s[0] & (s[0] - 1) for s, _ in parse_sequence("pow2-buckets"))
    assert {d for _, d in parse_sequence("dtype-change")} == {None, "float16", "bfloat16"}


def test_random_preset_is_seeded():
    assert preset("random", 7) == preset("random", 7)
    assert preset("random", 7) != preset("random", 8)
    assert canonical("random:7") == preset("random", 7)
    assert canonical("random") == preset("random", 0)


def test_presets_mix_with_typed_shapes():
    assert canonical("squares,512x512:float16") == ISSUE + ",512x512:float16"


@pytest.mark.parametrize(
    ("shape", "dims", "how", "multiple", "padded"),
    [
        ((3000, 3000), (0, 1), "pow2", 1, (4096, 4096)),
        ((512, 512), (0, 1), "pow2", 1, (512, 512)),
        ((1, 7), (0, 1), "pow2", 1, (1, 8)),
        ((72, 1024), (0,), "multiple", 32, (96, 1024)),
        ((64, 1000), (0,), "multiple", 32, (64, 1000)),
        ((100,), (0, 1), "pow2", 1, (128,)),  # a dim the shape lacks is skipped
    ],
)
def test_bucket(shape, dims, how, multiple, padded):
    assert bucket(shape, dims, how, multiple) == padded


def test_recompiles_spec_defaults_and_the_ignored_main_shape():
    spec = build_spec("recompiles", "anything at all", device="cpu")
    assert spec.option("shapes") == ISSUE
    assert spec.option("modes") == "dynamic=False,dynamic=None,dynamic=True,mark_dynamic"
    assert spec.option("backend") == "inductor" and spec.option("recompile_limit") == 8
    assert spec.option("fullgraph") is False and spec.option("dims") == "0,1"
    assert spec.shape == (512, 512)  # the sequence's first shape, recorded as the run's shape
    again = RunSpec.from_dict(spec.to_dict())
    assert again == spec and again.key() == spec.key()
    other = build_spec("recompiles", "8", options={"shapes": "64x32:float16,8x8"})
    assert other.shape == (64, 32) and other.option("shapes") == "64x32:float16,8x8"


def test_recompiles_spec_errors_name_the_field():
    with pytest.raises(SpecError) as info:
        build_spec(
            "recompiles",
            "8",
            options={
                "shapes": "512x512,12y5",
                "modes": "dynamic=Maybe",
                "recompile_limit": 0,
                "backend": "tvm",
            },
        )
    problems = info.value.problems
    assert set(problems) == {"shapes", "modes", "recompile_limit", "backend"}
    assert "shape 2 ('12y5')" in problems["shapes"]
    assert "allowed (one or more): dynamic=False" in problems["modes"]
    assert "allowed 1 to 64" in problems["recompile_limit"]
    assert "allowed: inductor, eager" in problems["backend"]


def test_other_experiments_still_validate_their_main_shape():
    with pytest.raises(SpecError, match="shape"):
        build_spec("streams", "0x-3")


def test_cli_builds_flags_from_the_catalog():
    parser = build_parser()
    args = parser.parse_args(
        ["run", "recompiles", "--shapes", "512x512,1024x1024", "--modes", "dynamic=True"]
        + ["--backend", "eager", "--recompile-limit", "4", "--fullgraph", "true"]
    )
    assert args.opt_shapes == "512x512,1024x1024" and args.opt_recompile_limit == "4"
    from runtime_lab.cli.main import _spec_from

    spec = _spec_from(args)
    assert spec.option("recompile_limit") == 4 and spec.option("fullgraph") is True
    assert spec.shape == (512, 512)
    assert "recompiles" in EXPERIMENTS and EXPERIMENTS["recompiles"].title == "Shapes & recompiles"
