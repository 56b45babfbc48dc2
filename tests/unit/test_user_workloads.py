"""A user's workload files: declarations checked field by field, every bad file one line."""

import textwrap
from pathlib import Path

import pytest

from runtime_lab import envvars
from runtime_lab.lab import workload_check as smoke
from runtime_lab.workloads import registry, user
from runtime_lab.workloads.plain import BadDeclaration, from_plain, to_plain

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "user_workloads"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "my_workloads.py"

HEAD = """
import torch
from runtime_lab.workloads.declare import Workload, WorkloadInfo

def inputs(shape, params, dtype, device, generator):
    return (torch.randn(*shape, generator=generator, device=device, dtype=dtype),)

def fn(x):
    return x * 2

def info(name="mine", **kw):
    fields = dict(name=name, title="t", look_for="", dims=("rows", "cols"),
                  default_shape=(64, 64), cpu_shape=(8, 8), bound="memory")
    return WorkloadInfo(**(fields | kw))
"""


@pytest.fixture(autouse=True)
def clean_registry():
    yield
    registry.clear_user()


def _file(tmp_path, body, name="mine.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(HEAD) + textwrap.dedent(body))
    return str(path)


@pytest.mark.parametrize("name", registry.NAMES)
def test_every_builtin_declaration_survives_plain_json(name):
    info = registry.WORKLOADS[name]
    assert from_plain(to_plain(info)) == info


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"name": "Has Space"}, "name 'Has Space'"),
        ({"name": "matmul"}, None),  # the loader refuses built-in names, not the format
        ({"dims": ["a", "a"]}, "names a dimension twice"),
        ({"cpu_shape": "8x8x8"}, "cpu_shape (8, 8, 8): has 3 dims"),
        ({"bound": "io"}, "bound 'io': must be one of memory, compute"),
        ({"dtypes": ["float64"]}, "dtypes"),
        ({"dynamic_dims": ["batch"]}, "dynamic_dims"),
        ({"title": 7}, "title: must be text"),
        ({"default_shape": "axb"}, "default_shape: must be a shape"),
    ],
)
def test_a_bad_field_is_named(change, said):
    data = to_plain(registry.WORKLOADS["softmax"]) | change
    if said is None:
        assert from_plain(data).name == change["name"]
        return
    with pytest.raises(BadDeclaration, match=said.replace("(", r"\(").replace(")", r"\)")):
        from_plain(data)


def test_the_example_file_loads_both_workloads_marked_as_the_users():
    loaded = user.load(str(EXAMPLE))
    assert loaded.problems == [] and loaded.names == ["my_gelu", "my_mlp"]
    info = registry.WORKLOADS["my_gelu"]
    assert info.origin == "yours (my_workloads.py)" and registry.is_user("my_gelu")
    code = registry.CODE["my_gelu"]
    assert "def my_gelu" in code["source"] and len(code["sha256"]) == 64
    for name in loaded.names:
        smoke.check(name)  # both pass their own check: a tensor of the reference's shape


BAD_FILES = [
    ("x = (\n", "syntax error at line"),
    ("raise ImportError('no such thing')\n", "importing it raised ImportError: no such thing"),
    ("import sys\nsys.exit(3)\n", "importing it raised SystemExit"),
    ("pass\n", "declares no WORKLOADS list"),
    ("WORKLOADS = Workload(info(), inputs, fn)\n", "WORKLOADS must be a list"),
    ("WORKLOADS = [info()]\n", "WORKLOADS[0] is a WorkloadInfo, not a Workload"),
    ("WORKLOADS = [Workload(info(name='9x'), inputs, fn)]\n", "name '9x'"),
    ("WORKLOADS = [Workload(info(cpu_shape=(8,)), inputs, fn)]\n", "cpu_shape (8,): has 1 dims"),
    ("WORKLOADS = [Workload(info(), inputs, 'fn')]\n", "fn must be a function"),
    ("WORKLOADS = [Workload(info(), inputs, len)]\n", "fn must be a plain Python function"),
    ("WORKLOADS = [Workload(info(name='softmax'), inputs, fn)]\n", "'softmax' is a built-in"),
]


@pytest.mark.parametrize(("body", "said"), BAD_FILES)
def test_each_bad_file_is_one_line_naming_it_and_the_good_file_still_loads(tmp_path, body, said):
    bad = _file(tmp_path, body, "bad.py")
    good = str(FIXTURES / "good.py")
    loaded = user.load(f"{bad},{good}")
    assert loaded.names == ["scaled_tanh"]
    assert len(loaded.problems) == 1, loaded.problems
    assert loaded.problems[0].startswith(bad) and said in loaded.problems[0], loaded.problems


def test_a_missing_file_a_missing_module_and_a_name_declared_twice(tmp_path):
    one = _file(tmp_path, "WORKLOADS = [Workload(info(), inputs, fn)]\n", "one.py")
    two = _file(tmp_path, "WORKLOADS = [Workload(info(), inputs, fn)]\n", "two.py")
    loaded = user.load(f"{tmp_path}/nope.py,no_such_pkg.mod,{one},{two}")
    assert loaded.names == ["mine"]
    assert loaded.problems[0] == f"{tmp_path}/nope.py: no such file"
    assert loaded.problems[1].startswith("no_such_pkg.mod: no such module")
    assert loaded.problems[2] == f"{two}: 'mine' is declared in {one} too"


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("bad_raises", "bad_raises: fn raised ValueError: the user's bug (at its cpu_shape 16x8"),
        ("bad_shape", "bad_shape: fn returned shape (16, 7), the reference (16, 8)"),
        ("bad_nan", "bad_nan: fn returned 128 NaN or infinite values of 128"),
        ("bad_float", "bad_float: fn returned float, not a tensor"),
    ],
)
def test_a_function_that_fails_its_check_is_one_line(name, said):
    assert user.load(str(FIXTURES / "bad_fn.py")).problems == []
    with pytest.raises(smoke.WorkloadRejected) as caught:
        smoke.check(name)
    assert str(caught.value).startswith(said), str(caught.value)
    assert "Traceback" not in str(caught.value)


def test_inputs_that_cannot_be_built_on_meta_are_refused_first(tmp_path):
    body = """
    def listed_inputs(shape, params, dtype, device, generator):
        values = torch.randn(*shape, device=device).tolist()  # data a meta tensor does not have
        return (torch.tensor(values, device=device, dtype=dtype),)
    WORKLOADS = [Workload(info(), listed_inputs, fn)]
    """
    user.load(_file(tmp_path, body))
    with pytest.raises(smoke.WorkloadRejected, match="inputs\\(\\) failed on device='meta'"):
        smoke.check("mine")


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("/nowhere/mine.py", "'/nowhere/mine.py': no such file"),
        ("not a module", "is neither a .py file nor a package.module name"),
    ],
)
def test_the_variable_is_checked_before_anything_starts(value, said):
    line = envvars.problem(envvars.WORKLOADS_ENV, {envvars.WORKLOADS_ENV: value})
    assert line is not None and said in line and "RUNTIME_LAB_WORKLOADS" in line
    ok = {envvars.WORKLOADS_ENV: f"{EXAMPLE},pkg.mod"}
    assert envvars.problem(envvars.WORKLOADS_ENV, ok) is None
