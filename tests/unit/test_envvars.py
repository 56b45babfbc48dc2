"""The RUNTIME_LAB_* table (issue 26): each bad value is one line naming the variable, its value
as given and what is allowed; good values pass; readers fall back to the default; docs list all."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from runtime_lab import envvars
from runtime_lab.envvars import (
    CPU_WORKERS_ENV,
    JOB_TIMEOUT_ENV,
    RAY_ADDRESS_ENV,
    SYSTEM_TORCH_ENV,
    THREADS_SOURCE_ENV,
    TORCH_THREADS_ENV,
    TORCH_VERSION_ENV,
)

ROOT = Path(__file__).resolve().parents[2]
CORES = 4  # faked: the bounds below do not depend on the machine the tests run on
# the values people get wrong: zero, negative, words, exponents, other scripts' digits, huge
COMMON_BAD = ["0", "-1", "abc", "1e9", "²", "٣", "１", "1_0", "nan", "inf", "9" * 5000]
BAD = {
    CPU_WORKERS_ENV: [*COMMON_BAD, "5", "999", "2.0", " 3x"],
    TORCH_THREADS_ENV: [*COMMON_BAD, "5", "999", "2.5"],
    JOB_TIMEOUT_ENV: [*COMMON_BAD, "0.5", "86401", "1e999", "-inf", "10 min"],
    RAY_ADDRESS_ENV: ["abc", "1e9", "http://head:6379", "head:99999", "head:", "a b:1", "²:1"],
    SYSTEM_TORCH_ENV: ["yes", "true", "2", "-1", "²"],
    TORCH_VERSION_ENV: ["abc", "2.13; rm -rf /", "latest", "-1", "²"],
    THREADS_SOURCE_ENV: ["two\nlines", "x" * 201],
}
GOOD = {
    CPU_WORKERS_ENV: [("1", 1), ("4", 4), (" 2 ", 2), ("+3", 3)],
    TORCH_THREADS_ENV: [("1", 1), ("4", 4)],
    JOB_TIMEOUT_ENV: [("1", 1.0), ("86400", 86400.0), ("1e3", 1000.0), ("90.5", 90.5)],
    RAY_ADDRESS_ENV: [(v, v) for v in ("auto", "local", "ray://head:10001", "10.0.0.2:6379")]
    + [("ray://head", "ray://head"), ("[::1]:6379", "[::1]:6379")],
    SYSTEM_TORCH_ENV: [("0", False), ("1", True)],
    TORCH_VERSION_ENV: [("2.13.0", "2.13.0"), ("2.6.0+cpu", "2.6.0+cpu"), ("2.7.0rc1", "2.7.0rc1")],
    THREADS_SOURCE_ENV: [("physical cores - 1 - 2 GPU worker(s)",) * 2],
}


@pytest.fixture(autouse=True)
def four_cores(monkeypatch):
    monkeypatch.setattr(envvars, "cores", lambda: CORES)


@pytest.mark.parametrize(
    ("name", "raw"), [pytest.param(n, v, id=f"{n[12:]}-{v[:10]!r}") for n in BAD for v in BAD[n]]
)
def test_a_bad_value_is_one_line_naming_the_variable_its_value_and_what_is_allowed(name, raw):
    line = envvars.problem(name, {name: raw})
    assert line is not None and "\n" not in line, line
    assert line.startswith(f"${name}=") and "is not allowed" in line
    assert envvars.VARS[name].allowed() in line  # what is allowed, in the table's own words
    assert len(line) < 400, line  # the value is cut (at 40 characters, its length said)
    if len(raw) > 40:
        assert f"({len(raw):,} characters)" in line and raw not in line
    # one place: the first problem of the scope is this line, said once
    scope = envvars.SETUP if envvars.VARS[name].scope == envvars.SETUP else envvars.SERVER
    assert envvars.first_problem(scope, {name: raw}) == line


def test_the_value_is_shown_as_typed():
    assert envvars.problem(CPU_WORKERS_ENV, {CPU_WORKERS_ENV: "1e3"}).startswith(
        f"${CPU_WORKERS_ENV}=1e3 is not allowed"  # as given: not 1000.0, not '1e3'
    )
    line = envvars.problem(CPU_WORKERS_ENV, {CPU_WORKERS_ENV: "99"})
    assert "=99 is not allowed: an integer from 1 to 4" in line
    assert "'a\\nb'" in envvars.problem(THREADS_SOURCE_ENV, {THREADS_SOURCE_ENV: "a\nb"})


@pytest.mark.parametrize(("name", "raw", "parsed"), [(n, v, p) for n in GOOD for v, p in GOOD[n]])
def test_good_values_pass_and_are_what_readers_get(name, raw, parsed):
    assert envvars.problem(name, {name: raw}) is None
    assert envvars.value(name, {name: raw}) == parsed


def test_unset_and_empty_are_the_default_and_no_problem():
    for var in envvars.TABLE:
        for environ in ({}, {var.name: ""}):
            assert envvars.problem(var.name, environ) is None
    assert envvars.first_problem(envvars.SERVER, {}) is None
    assert envvars.value(CPU_WORKERS_ENV, {}) == 1
    assert envvars.value(JOB_TIMEOUT_ENV, {}) == 600.0
    assert envvars.value(TORCH_THREADS_ENV, {}) is None  # the worker's own choice
    assert envvars.value(RAY_ADDRESS_ENV, {}) == ""  # this host only


@pytest.mark.parametrize("name", [CPU_WORKERS_ENV, TORCH_THREADS_ENV, JOB_TIMEOUT_ENV])
def test_a_reader_handed_a_bad_value_takes_the_default_and_never_raises(name):
    for raw in BAD[name]:
        assert envvars.value(name, {name: raw}) == envvars.VARS[name].default


def test_the_cpu_bound_is_the_machines(monkeypatch):
    monkeypatch.setattr(envvars, "cores", lambda: 2)
    assert envvars.problem(CPU_WORKERS_ENV, {CPU_WORKERS_ENV: "2"}) is None
    assert "from 1 to 2" in envvars.problem(CPU_WORKERS_ENV, {CPU_WORKERS_ENV: "3"})
    assert "from 1 to 2" in envvars.problem(TORCH_THREADS_ENV, {TORCH_THREADS_ENV: "3"})


def test_cores_is_the_affinity_mask_where_there_is_one(monkeypatch):
    monkeypatch.undo()  # the real one
    assert 1 <= envvars.cores() <= (__import__("os").cpu_count() or 1)


def test_first_problem_keeps_table_order_and_skips_a_flag_given_instead():
    environ = {RAY_ADDRESS_ENV: "nope", CPU_WORKERS_ENV: "0", SYSTEM_TORCH_ENV: "yes"}
    assert envvars.first_problem(envvars.SERVER, environ).startswith(f"${CPU_WORKERS_ENV}=0 ")
    skip = (CPU_WORKERS_ENV,)
    assert envvars.first_problem(envvars.SERVER, environ, skip).startswith(f"${RAY_ADDRESS_ENV}")
    assert (
        envvars.first_problem(envvars.SERVER, environ, (CPU_WORKERS_ENV, RAY_ADDRESS_ENV)) is None
    )
    # setup.sh's own variables are its own: the server does not refuse them, setup does
    assert envvars.first_problem(envvars.SETUP, environ).startswith(f"${SYSTEM_TORCH_ENV}=")


def test_setups_check_is_the_tables(capsys):
    assert envvars.main(["setup"]) == 0
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(TORCH_VERSION_ENV, "latest")
        assert envvars.main(["setup"]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"runtime_lab: error: ${TORCH_VERSION_ENV}='latest' is not allowed: a release number "
        "such as 2.13.0; it sets the torch setup.sh installs when the venv has none "
        "(default 2.13.0)\n"
    )
    assert '"$python" -m runtime_lab.envvars setup' in (ROOT / "scripts/setup.sh").read_text()


def test_the_data_dir_is_checked_by_configs_rule(tmp_path):
    (tmp_path / "afile").write_text("")
    line = envvars.problem(envvars.DATA_DIR_ENV, {envvars.DATA_DIR_ENV: str(tmp_path / "afile")})
    assert "(is a file, not a directory)" in line
    assert envvars.problem(envvars.DATA_DIR_ENV, {envvars.DATA_DIR_ENV: str(tmp_path)}) is None


def test_every_runtime_lab_variable_read_anywhere_is_in_the_table_and_the_docs():
    """One place: a variable named in the code, scripts or Makefile but missing from the table
    (or the table's row missing from docs/serving.md) fails here."""
    named = set()
    for folder in ("runtime_lab", "app_pages", "scripts"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".py", ".sh") and "evidence" not in path.parts:
                named |= set(re.findall(r"RUNTIME_LAB_[A-Z_]+[A-Z]", path.read_text()))
    named |= set(re.findall(r"RUNTIME_LAB_[A-Z_]+[A-Z]", (ROOT / "Makefile").read_text()))
    named |= set(re.findall(r"RUNTIME_LAB_[A-Z_]+[A-Z]", (ROOT / "app.py").read_text()))
    assert named <= set(envvars.VARS), named - set(envvars.VARS)
    docs = (ROOT / "docs/serving.md").read_text()
    for var in envvars.TABLE:
        assert f"| `{var.name}` | {var.kind} |" in docs, var.name
