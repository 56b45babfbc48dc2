"""A user's workload files: declarations checked field by field, every bad file one line."""

import os
import signal
import textwrap
from pathlib import Path

import pytest

from runtime_lab import envvars
from runtime_lab.lab import workload_check as smoke
from runtime_lab.workloads import describe, registry, user
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
    ("import sys\nsys.exit(3)\n", "importing it called sys.exit(3)"),
    ("import os\nos._exit(3)\n", "importing it was stopped: it called os._exit(3)"),
    ("WORKLOADS = [Workload(info(multiple_of=(('cols', 3),)), inputs, fn)]\n", "not a multiple"),
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
        ("/nowhere/mine.py", "/nowhere/mine.py: no such file"),
        ("not a module", "'not a module' is neither a .py file nor a package.module name"),
    ],
)
def test_a_bad_entry_is_a_warning_never_a_variable_that_stops_the_app(value, said):
    assert envvars.problem(envvars.WORKLOADS_ENV, {envvars.WORKLOADS_ENV: value}) is None
    assert envvars.first_problem(environ={envvars.WORKLOADS_ENV: value}) is None
    assert envvars.entry_problem(value) == said
    assert envvars.entry_problem(str(EXAMPLE)) is None and envvars.entry_problem("pkg.mod") is None


def test_a_file_that_loops_at_import_is_stopped_and_a_timer_set_before_goes_on(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(user, "IMPORT_S", 0.2)
    loops = _file(tmp_path, "while True:\n    pass\n", "loops.py")
    signal.setitimer(signal.ITIMER_REAL, 60)  # as pytest-timeout's own alarm would be
    try:
        loaded = user.load(f"{loops},{FIXTURES / 'good.py'}")
        left = signal.getitimer(signal.ITIMER_REAL)[0]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    assert loaded.problems == [f"{loops}: importing it was stopped: it ran for more than 0.2 s"]
    assert loaded.names == ["scaled_tanh"] and 50 < left < 60


def test_os_exit_in_another_thread_still_exits_while_a_file_imports(tmp_path, monkeypatch):
    ended = []
    monkeypatch.setattr(user.os, "_exit", ended.append)  # the real one: what the guard keeps
    body = "import os, threading\nt = threading.Thread(target=os._exit, args=(7,))\nt.start(); t.join()\n"
    loaded = user.load(_file(tmp_path, body, "threads.py"))
    assert ended == [7] and "declares no WORKLOADS" in loaded.problems[0]
    assert user.os._exit == ended.append  # put back after the import


def _answers(by_entry):
    """A stand-in for the describe children: each entry's (document, why) as given."""

    def run_module(module, args, timeout_s, **kw):
        assert module == "runtime_lab.workloads.describe" and "RUNTIME_LAB_WORKLOADS" in kw["drop"]
        return by_entry[args["entry"]]

    return run_module


def test_each_file_is_read_by_its_own_child_and_only_those_read_reach_the_workers(
    tmp_path, monkeypatch
):
    good, other = (str(FIXTURES / "good.py"), str(EXAMPLE))
    exits, loops = _file(tmp_path, "", "exits.py"), _file(tmp_path, "", "loops.py")
    work = to_plain(registry.WORKLOADS["softmax"]) | {"name": "scaled_tanh"}
    answers = {
        good: ({"workloads": [{"info": work, "code": {"sha256": "a" * 64}}], "problems": []}, None),
        exits: (None, "exit 3: no output"),
        loops: (None, "did not finish in 30 s"),
        other: ({"workloads": [{"info": work}], "problems": []}, None),  # a name taken
    }
    monkeypatch.setattr(describe.child, "run_module", _answers(answers))
    missing = str(tmp_path / "gone.py")
    monkeypatch.setenv(envvars.WORKLOADS_ENV, ",".join([exits, good, loops, missing, other]))
    found = describe.from_environment()
    assert found.names == ["scaled_tanh"] and found.kept == [good]
    assert found.problems == [
        f"{exits}: importing it ended its process (exit 3: no output)",
        f"{loops}: reading it took over 30 s (does it loop or wait at import?)",
        f"{missing}: no such file",
        f"{other}: 'scaled_tanh' is declared in {good} too",
    ]
    assert os.environ[envvars.WORKLOADS_ENV] == good  # the workers import the good file only
    monkeypatch.setattr(describe.child, "run_module", _answers({exits: (None, "exit 3: x")}))
    assert describe.from_environment(exits).names == []
    assert envvars.WORKLOADS_ENV not in os.environ  # none read: the workers import none


def test_a_cpu_shape_too_big_to_try_is_refused_on_meta_before_anything_is_allocated(tmp_path):
    body = "WORKLOADS = [Workload(info(cpu_shape=(65536, 65536)), inputs, fn)]\n"
    assert user.load(_file(tmp_path, body)).names == ["mine"]
    with pytest.raises(smoke.WorkloadRejected) as caught:
        smoke.check("mine")
    said = str(caught.value)
    assert said.startswith("mine: its cpu_shape 65536x65536 needs about 48.00 GiB") and (
        "declare a smaller cpu_shape" in said
    )
