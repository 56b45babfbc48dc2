"""`python -m benchmarks`: every setting has a range and --out a rule, checked before anything is
measured; the temporary lab goes on any exit (issue 38)."""

from __future__ import annotations

import signal

import pytest

from benchmarks import __main__ as cli
from benchmarks.harness import Bench
from benchmarks.recipe import SettingError
from benchmarks.recipes import RECIPES


@pytest.fixture
def nothing_measured(monkeypatch):
    """main() up to the measuring, which is recorded instead of run."""
    measured = []
    monkeypatch.setattr(cli, "resolve_device", lambda recipe, asked: ("cpu", ""))
    monkeypatch.setattr(cli, "measure", lambda *args: measured.append(args) or 0)
    return measured


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_every_recipes_defaults_pass_its_own_ranges(name):
    settings = RECIPES[name].read({})
    assert settings.as_dict() == {n: s.default for n, s in RECIPES[name].settings.items()}
    assert all(s.check is not None for s in RECIPES[name].settings.values())  # each has a range


@pytest.mark.parametrize(
    ("recipe", "setting", "said"),
    [
        ("rss", "runs=-1", "runs='-1' is not allowed; allowed: a whole number from 1 to 1000"),
        ("rss", "runs=10000000", "allowed: a whole number from 1 to 1000"),
        ("rss", "runs=1e3", "allowed: a whole number from 1 to 1000"),
        ("rerun-latency", "attempts=0", "allowed: a whole number from 1 to 50"),
        ("rerun-latency", "shape=64xabc", "dimension 'abc' is not a positive integer"),
        ("rerun-latency", "modes=eager,warp", "allowed: some of eager, inductor"),
        ("what-if", "new_shape=0x5", "new_shape='0x5' is not allowed"),
        ("page-defaults", "pause_s=inf", "allowed: a number from 0 to 600"),
        ("page-defaults", "pages=fusion,nope", "allowed: some of fusion"),
        ("measurement", "sides=" + ",".join(["64"] * 40), "up to 32 whole numbers"),
        ("catalog", "dtype=int8", "allowed: one of float32, bfloat16, float16"),
        ("fusion-bench", "do_bench=maybe", "allowed: yes or no"),
        ("worker-start", "rounds=" + "9" * 5000, "(5,000 characters) is not allowed"),
    ],
)
def test_a_bad_setting_is_one_line_before_anything_is_measured(
    capsys, nothing_measured, recipe, setting, said
):
    assert cli.main([recipe, "--set", setting]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith("benchmarks: error: ") and said in err and err.count("\n") == 1
    assert nothing_measured == []
    with pytest.raises(SettingError):
        RECIPES[recipe].read(dict([setting.split("=", 1)]))


def test_out_is_checked_first_and_never_made_above_an_existing_folder(
    tmp_path, capsys, nothing_measured
):
    deep = tmp_path / "no" / "such" / "dir"
    assert cli.main(["rss", "--out", str(deep)]) == cli.EXIT_USAGE
    assert f"parent directory {deep.parent} does not exist" in capsys.readouterr().err
    (tmp_path / "file").write_text("")
    for bad in (tmp_path / "file", tmp_path / "file" / "x", ""):
        assert cli.main(["rss", "--out", str(bad)]) == cli.EXIT_USAGE
    assert nothing_measured == [] and sorted(p.name for p in tmp_path.iterdir()) == ["file"]
    assert cli.main(["rss", "--out", str(tmp_path / "new")]) == 0  # one level: allowed
    assert nothing_measured[0][3] == tmp_path / "new" and not (tmp_path / "new").exists()


def test_writing_makes_only_the_last_folder_and_says_a_refusal_in_one_line(tmp_path, capsys):
    assert cli.write(tmp_path / "new" / "rss.json", "{}")
    assert (tmp_path / "new" / "rss.json").read_text() == "{}\n"
    assert not cli.write(tmp_path / "a" / "b" / "rss.json", "{}")
    assert "could not write" in capsys.readouterr().err and not (tmp_path / "a").exists()


def test_the_temporary_lab_is_removed_when_a_signal_ends_the_run(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    with pytest.raises(SystemExit) as ended, Bench("cpu") as bench:
        assert bench.data_dir.parent.is_dir()
        cli._stop(signal.SIGTERM, None)  # what SIGTERM and SIGHUP do in main()
    assert ended.value.code == 128 + signal.SIGTERM
    assert list(tmp_path.iterdir()) == []
