"""RunSpec parsing and validation: good inputs parse, bad ones name the field and what is allowed."""

import pytest

from runtime_lab.spec import RunSpec, SpecError, build_spec, check_against_env, parse_shape


@pytest.mark.parametrize(
    ("text", "shape"),
    [
        ("4096x4096", (4096, 4096)),
        ("4096,4096", (4096, 4096)),
        ("4096 4096", (4096, 4096)),
        (" 8 x 16 ", (8, 16)),
        ("2x3x4x5", (2, 3, 4, 5)),
        ("7", (7,)),
        ([3, 4], (3, 4)),
    ],
)
def test_shape_forms(text, shape):
    assert parse_shape(text) == shape


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "is empty"),
        ("0x-3", "not a positive integer"),
        ("0x3", "≤ 0"),
        ("1x2x3x4x5", "5 dimensions"),
        ("1.5x2", "not a positive integer"),
        ("abc", "not a positive integer"),
        ("1000000x1000000", "elements, above"),
        ("x" * 300, "characters long"),
        ("4096;DROP TABLE runs", "not a positive integer"),
    ],
)
def test_bad_shapes_say_what_is_allowed(text, fragment):
    with pytest.raises(ValueError, match=fragment) as info:
        parse_shape(text)
    assert "1 to 4" in str(info.value) or "limit" in str(info.value)


def test_build_spec_fills_defaults_and_is_frozen():
    spec = build_spec("selftest", "8")
    assert spec.option("behaviour") == "ok" and spec.option("seconds") == 1
    with pytest.raises(AttributeError):
        spec.dtype = "float16"


def test_every_bad_field_is_reported_at_once():
    with pytest.raises(SpecError) as info:
        build_spec(
            "streams", "0", dtype="int8", device="tpu", warmup=-1, repeat="many", l2_flush="maybe"
        )
    problems = info.value.problems
    assert set(problems) == {"shape", "dtype", "device", "warmup", "repeat", "l2_flush"}
    assert "float32, bfloat16, float16" in problems["dtype"]
    assert "cuda:N" in problems["device"]
    assert "1 to 10000" in problems["repeat"]


def test_unknown_experiment_and_option():
    with pytest.raises(SpecError, match="allowed: fusion, recompiles, streams, allocator"):
        build_spec("nope", "8")
    with pytest.raises(SpecError, match="not an option of streams"):
        build_spec("streams", "8", options={"variants": "x"})
    with pytest.raises(SpecError, match="allowed: ok, sleep"):
        build_spec("selftest", "8", options={"behaviour": "explode"})


def test_round_trip_and_key():
    spec = build_spec("streams", "64x32", dtype="bfloat16", device="CUDA:0", repeat="5")
    assert spec.device == "cuda:0" and spec.repeat == 5
    again = RunSpec.from_dict(spec.to_dict())
    assert again == spec and again.key() == spec.key()
    assert build_spec("streams", "64x33").key() != spec.key()


def test_env_checks():
    spec = build_spec("streams", "8", device="cuda:7")
    no_gpu = {"gpus": []}
    one_gpu = {"gpus": [{"index": 0, "name": "T4", "bf16_supported": False}]}
    assert "no GPU" in check_against_env(spec, no_gpu)["device"]
    assert "allowed: cuda:0" in check_against_env(spec, one_gpu)["device"]
    bf16 = build_spec("streams", "8", device="cuda", dtype="bfloat16")
    assert "bfloat16" in check_against_env(bf16, one_gpu)["dtype"]
    assert check_against_env(build_spec("streams", "8", device="cpu"), no_gpu) == {}
