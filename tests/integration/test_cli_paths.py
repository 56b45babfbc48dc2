"""Bad path and number arguments (issue 18): `python -m runtime_lab` refuses them before running.

Matrix: every file-system argument (--data-dir on each command that opens it, the data dir from
$RUNTIME_LAB_DATA_DIR, --json) × each way a path can be unusable, and every number argument
out of its range. Each case: exit 2, exactly one stderr line naming the argument and the path
or value, no traceback, nothing printed on stdout, and nothing created or recorded.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from runtime_lab import config
from runtime_lab.cli import argcheck
from runtime_lab.cli import main as cli
from runtime_lab.store.history import History

ROOT = Path(__file__).resolve().parents[2]
ROOT_USER = os.geteuid() == 0  # root writes through any mode bits: chmod cases can't fail there

# (case id, how the path is made under tmp, message fragment) for a directory / a file argument
DIR_CASES = [
    ("missing-parent", "nope/lab", "parent directory {tmp}/nope does not exist"),
    ("parent-is-a-file", "afile/lab", "parent {tmp}/afile is not a directory"),
    ("is-a-file", "afile", "is a file, not a directory"),
    ("not-writable", "ro", "directory is not writable"),
    ("parent-not-writable", "ro/lab", "parent directory {tmp}/ro is not writable"),
    ("broken-link", "dangling", "is a broken symbolic link"),
]
FILE_CASES = [
    ("missing-parent", "nope/out.json", "parent directory {tmp}/nope does not exist"),
    ("parent-is-a-file", "afile/out.json", "parent {tmp}/afile is not a directory"),
    ("is-a-dir", "adir", "is a directory, not a file"),
    ("not-writable", "ro/out.json", "parent directory {tmp}/ro is not writable"),
    ("file-not-writable", "rofile.json", "file is not writable"),
]
# (argument as the message names it, where the path goes, command line after the global flags)
DIR_TARGETS = [
    ("--data-dir", "flag", ["history"]),
    ("--data-dir", "flag", ["run", "streams"]),
    ("$RUNTIME_LAB_DATA_DIR", "env", ["history"]),
    ("$RUNTIME_LAB_DATA_DIR", "env", ["run", "selftest"]),
]
NUMBER_CASES = [
    ("--limit", ["history", "--limit"], value, "an integer from 1 to 10000", shown)
    for value, shown in [
        ("0", "0"),
        ("10001", "10001"),
        ("-1", "-1"),
        ("1.5", "1.5"),
        ("abc", "'abc'"),
        ("", "''"),
        ("１０", "'１０'"),
        ("1_0", "'1_0'"),
        ("9" * 5000, "'" + "9" * 40 + "…'"),
    ]
] + [
    (
        "--timeout",
        ["run", "streams", "--timeout"],
        value,
        "a number of seconds from 1 to 86400",
        shown,
    )
    for value, shown in [
        ("0", "0"),
        ("0.5", "0.5"),
        ("86401", "86401"),
        ("-1", "-1"),
        ("1e999", "1e999"),
        ("nan", "'nan'"),
        ("inf", "'inf'"),
        ("abc", "'abc'"),
        ("", "''"),
        ("６０", "'６０'"),
    ]
]


def _cli(argv, env_dir=None, cwd=ROOT):
    env = {k: v for k, v in os.environ.items() if k != config.DATA_DIR_ENV}
    if env_dir is not None:
        env[config.DATA_DIR_ENV] = str(env_dir)
    return subprocess.run(
        [sys.executable, "-m", "runtime_lab", *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**env, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )


def _make(tmp: Path, relative: str) -> Path:
    """The case's surroundings: a file, a dir, read-only ones; returns the path to pass."""
    (tmp / "afile").write_text("not a directory\n")
    (tmp / "adir").mkdir()
    (tmp / "ro").mkdir()
    (tmp / "rofile.json").write_text("{}\n")
    (tmp / "rofile.json").chmod(0o400)
    (tmp / "dangling").symlink_to(tmp / "gone")
    (tmp / "ro").chmod(0o500)
    return tmp / relative


@pytest.fixture
def tmp(tmp_path):
    yield tmp_path
    if (tmp_path / "ro").exists():
        (tmp_path / "ro").chmod(0o700)  # so pytest can clean up


def _refused(done, argument: str, *fragments: str) -> str:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert lines[0].startswith(f"runtime_lab: error: {argument}"), lines[0]
    assert all(f in lines[0] for f in fragments), (fragments, lines[0])
    assert "Traceback" not in done.stderr and done.stdout == ""
    return lines[0]


def _skip_if_modes_ignored(case):
    if ROOT_USER and "writable" in case:
        pytest.skip("running as root: mode bits do not stop root (the faked test below covers it)")


def _before(tmp: Path) -> list[str]:
    return sorted(str(p.relative_to(tmp)) for p in tmp.rglob("*"))


def _dir_params():
    for argument, where, command in DIR_TARGETS:
        for case, relative, fragment in DIR_CASES:
            case_id = f"{where}-{'-'.join(command)}-{case}"
            yield pytest.param(argument, where, command, case, relative, fragment, id=case_id)


@pytest.mark.parametrize(
    ("argument", "where", "command", "case", "relative", "fragment"), [*_dir_params()]
)
def test_unusable_data_dir_is_refused_before_anything_runs(
    tmp, argument, where, command, case, relative, fragment
):
    _skip_if_modes_ignored(case)
    path = _make(tmp, relative)
    before = _before(tmp)
    if where == "flag":
        done = _cli(["--data-dir", str(path), *command])
    else:
        done = _cli(command, env_dir=path)
    _refused(done, f"{argument} {path}: {fragment.format(tmp=tmp)}")
    assert _before(tmp) == before  # no data dir, history or trace folder was made


@pytest.mark.parametrize(
    ("case", "relative", "fragment"), [pytest.param(*c, id=c[0]) for c in FILE_CASES]
)
def test_unusable_json_path_is_refused_before_the_run(tmp, case, relative, fragment):
    _skip_if_modes_ignored(case)
    path = _make(tmp, relative)
    data = tmp / "lab-data"
    before = _before(tmp)
    done = _cli(["--data-dir", str(data), "run", "streams", "--json", str(path)])
    _refused(done, f"--json {path}: {fragment.format(tmp=tmp)}")
    assert _before(tmp) == before and not data.exists()  # no worker, no history


def test_empty_paths_are_refused(tmp):
    _refused(_cli(["--data-dir", "", "history"]), "--data-dir is empty", "expected")
    done = _cli(["--data-dir", str(tmp / "d"), "run", "streams", "--json="])
    _refused(done, "--json is empty", "'-' for stdout")
    assert _before(tmp) == []


def _in_process(argv, capsys) -> subprocess.CompletedProcess:
    """The CLI's main() in this process, read as a finished process: the same checks and lines
    without an interpreter start (0.7 s a case); argparse's own errors exit as they would."""
    capsys.readouterr()
    try:
        code = cli.main(argv)
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(argv, code, out, err)


@pytest.mark.parametrize(
    ("argument", "command", "value", "allowed", "shown"),
    [pytest.param(*c, id=f"{c[0]}-{c[2][:12] or 'empty'}") for c in NUMBER_CASES],
)
def test_number_out_of_range_is_refused(tmp, argument, command, value, allowed, shown, capsys):
    data = tmp / "lab-data"
    argv = ["--data-dir", str(data), *command, value]
    # 0, for each argument, through `python -m runtime_lab` itself; the rest through its main()
    done = _cli(argv) if value == "0" else _in_process(argv, capsys)
    _refused(done, f"{argument} must be {allowed}, got {shown}")
    assert not data.exists()


def test_a_missing_data_dir_with_a_usable_parent_is_accepted_and_history_creates_nothing(tmp):
    for limit in ("1", "10000"):  # both ends of --limit are allowed
        done = _cli(["--data-dir", str(tmp / "new"), "history", "--limit", limit])
        said = f"runtime_lab: no runs recorded in {tmp / 'new'}\n"
        assert done.returncode == 0 and done.stderr == said, done.stderr  # empty, and says so
    assert not (tmp / "new").exists()  # `history` only reads (issue 26): nothing is made


def test_env_command_does_not_open_the_data_dir(tmp):
    (tmp / "afile").write_text("")
    done = _cli(["env"], env_dir=tmp / "afile")
    assert done.returncode == 0 and '"python"' in done.stdout, done.stderr


def test_default_data_dir_is_named_when_unusable(tmp):
    (tmp / config.DEFAULT_DATA_DIR).write_text("a file where the default data dir goes\n")
    done = _cli(["history"], cwd=tmp)
    line = _refused(done, f"data directory {tmp / config.DEFAULT_DATA_DIR}: is a file")
    assert config.DATA_DIR_ENV not in line


def test_unwritable_paths_are_refused_with_modes_faked(tmp, monkeypatch, capsys):
    """Where tests run as root, mode bits never refuse: fake os.access saying no for `ro`."""
    _make(tmp, "ro")
    real = os.access
    denied = {str(tmp / "ro"), str(tmp / "rofile.json")}
    monkeypatch.setattr(os, "access", lambda p, m: str(p) not in denied and real(p, m))
    cases = [
        (["--data-dir", str(tmp / "ro"), "history"], "directory is not writable"),
        (["--data-dir", str(tmp / "ro" / "x"), "history"], f"parent directory {tmp}/ro is not"),
        (
            ["--data-dir", str(tmp / "d"), "run", "streams", "--json", str(tmp / "rofile.json")],
            "file is not writable",
        ),
        (
            ["--data-dir", str(tmp / "d"), "run", "streams", "--json", str(tmp / "ro" / "o.json")],
            f"parent directory {tmp}/ro is not writable",
        ),
    ]
    for argv, fragment in cases:
        assert cli.main(argv) == 2
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and fragment in err, err
    assert not (tmp / "d").exists()


def test_config_says_why_for_the_page(tmp, monkeypatch):
    monkeypatch.setenv(config.DATA_DIR_ENV, str(tmp / "afile"))
    (tmp / "afile").write_text("")
    message = config.data_dir_problem()
    assert message == f"${config.DATA_DIR_ENV} {tmp / 'afile'}: is a file, not a directory"
    assert config.data_dir_problem(tmp) is None
    monkeypatch.setenv(config.DATA_DIR_ENV, str(tmp / "fresh"))
    assert config.data_dir_problem() is None and not (tmp / "fresh").exists()


def test_number_parsers_accept_the_range_ends():
    assert argcheck.integer("--limit", "1", 1, 10000) == 1
    assert argcheck.integer("--limit", " 10000 ", 1, 10000) == 10000
    assert argcheck.seconds("--timeout", "1", 1.0, 86400.0) == 1.0
    assert argcheck.seconds("--timeout", "86400", 1.0, 86400.0) == 86400.0
    assert argcheck.seconds("--timeout", "1.5e1", 1.0, 86400.0) == 15.0


@pytest.mark.slow
def test_json_write_failing_after_the_run_is_one_line_and_exit_1(tmp):
    """Checked up front, the file can still fail at the end (disk full): one line, no traceback."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    argv = ["--data-dir", str(tmp / "d"), "run", "selftest", "--device", "cpu", "--json"]
    done = _cli([*argv, "/dev/full"])
    errors = [line for line in done.stderr.splitlines() if "error" in line]
    assert done.returncode == 1 and errors == [
        "runtime_lab: error: --json /dev/full: No space left on device"
    ]
    assert "Traceback" not in done.stderr and "selftest ok" in done.stdout
    assert [r["status"] for r in History(tmp / "d" / "history.sqlite3").list()] == ["done"]


# (path, the kernel filesystem it lies on) where a directory cannot be made, even by root
KERNEL_CASES = [("/proc/x", "/proc", "proc"), ("/proc/self/x", "/proc/self", "proc")]
KERNEL_CASES += [("/sys/x", "/sys", "sysfs")] if config.kernel_fs("/sys") == "sysfs" else []


@pytest.mark.parametrize(("path", "parent", "kind"), KERNEL_CASES)
@pytest.mark.parametrize("command", [["run", "streams", "--device", "cpu"], ["history"]])
def test_a_data_dir_on_a_kernel_filesystem_is_one_line(path, parent, kind, command):
    """Issue 26: `--data-dir /proc/x` passed every check as root, then mkdir raised (a
    traceback) on `run`, and `history` said "no runs recorded in /proc/x"."""
    if config.kernel_fs(parent) != kind:
        pytest.skip(f"{parent} is not on {kind} here")
    done = _cli(["--data-dir", path, *command])
    _refused(done, f"--data-dir {path}: parent {parent} is on {kind}, a kernel filesystem")
    env_done = _cli(command, env_dir=path)
    _refused(env_done, f"${config.DATA_DIR_ENV} {path}: parent {parent} is on {kind}")


def test_a_data_dir_that_fails_to_be_made_after_its_checks_is_one_line(tmp, monkeypatch, capsys):
    """A race, or a filesystem the checks can't see: mkdir's error is one line and exit 2."""
    (tmp / "afile").write_text("")
    monkeypatch.setattr(config, "dir_problem", lambda path: None)
    assert cli.main(["--data-dir", str(tmp / "afile" / "d"), "run", "streams"]) == 2
    err = capsys.readouterr().err
    assert (
        err
        == f"runtime_lab: error: data directory {tmp}/afile/d could not be created: Not a directory\n"
    )


def test_a_name_longer_than_the_filesystem_takes_is_refused(tmp):
    path = tmp / ("a" * 300)
    done = _cli(["--data-dir", str(path), "run", "streams"])
    _refused(done, f"--data-dir {path}: its name is longer than 255 bytes")
    assert _before(tmp) == []
