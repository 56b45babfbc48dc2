"""What a run would fail on is refused with the spec, before anything runs or is stored (issue 38)."""

from __future__ import annotations

import pytest

from runtime_lab.spec import SpecError, build_spec
from runtime_lab.workloads.plain import BadDeclaration, from_plain, to_plain
from runtime_lab.workloads.registry import WORKLOADS

RULE = "allowed: hidden a multiple of heads"


def _problems(experiment: str, shape: str, **options) -> dict[str, str]:
    with pytest.raises(SpecError) as caught:
        build_spec(experiment, shape, device="cpu", options=options)
    return caught.value.problems


@pytest.mark.parametrize(
    ("shape", "params", "field", "said"),
    [
        ("1x128x256", "heads=5", "params", "hidden 256 is not a multiple of heads 5"),
        ("1x128x250", "", "shape", "hidden 250 is not a multiple of heads 32"),
        ("llama3-8b-2k", "heads=24", "params", "hidden 4096 is not a multiple of heads 24"),
    ],
)
def test_heads_that_do_not_divide_hidden_are_refused_with_the_spec(shape, params, field, said):
    found = _problems("fusion", shape, workload="transformer_block", params=params)
    assert found == {field: f"{said}; {RULE}"}


def test_each_entry_of_a_shape_sequence_is_held_to_the_rule_too():
    found = _problems(
        "recompiles", "64x64", workload="transformer_block", shapes="1x16x256,1x32x250"
    )
    assert found == {
        "shapes": f"shape 2 (1x32x250): hidden 250 is not a multiple of heads 32; {RULE}"
    }


def test_an_odd_head_dim_is_refused_for_rope_and_a_sound_block_is_taken():
    found = _problems("fusion", "8x8x7", workload="rope")
    assert found == {
        "shape": "head_dim 7 is not a multiple of 2; allowed: head_dim a multiple of 2"
    }
    spec = build_spec(
        "fusion", "1x128x256", device="cpu", options={"workload": "transformer_block"}
    )
    assert spec.option("workload") == "transformer_block"


@pytest.mark.parametrize("value", ["0", "-1", "99999999", "0" * 5000 + "9" * 9, "-0"])
def test_a_parameter_out_of_range_says_its_range_not_its_format(value):
    found = _problems("fusion", "1x128x256", workload="transformer_block", params=f"heads={value}")
    assert "heads takes a whole number from 1 to 1,048,576" in found["params"]
    assert "name=integer" not in found["params"] and len(found["params"]) < 200


@pytest.mark.parametrize("value", ["x", "1.5", "٣", "1_0", ""])
def test_a_parameter_that_is_no_integer_is_said_as_such(value):
    found = _problems("fusion", "1x128x256", workload="transformer_block", params=f"heads={value}")
    assert "is not name=integer" in found["params"]


def test_a_declaration_that_breaks_its_own_rule_or_names_nothing_is_refused():
    block = to_plain(WORKLOADS["transformer_block"])
    assert from_plain(block) == WORKLOADS["transformer_block"]
    with pytest.raises(BadDeclaration, match="cpu_shape: hidden 256 is not a multiple of heads 5"):
        from_plain(block | {"cpu_params": {"heads": 5, "intermediate": 1024}})
    with pytest.raises(BadDeclaration, match=r"multiple_of \('width', 'heads'\)"):
        from_plain(block | {"multiple_of": [["width", "heads"]]})
    with pytest.raises(BadDeclaration, match="multiple_of"):
        from_plain(block | {"multiple_of": [["hidden", 0]]})
