"""Messages that misled (issue 26), unit by unit: long values cut with their length said, numbers
quoted as typed, gzip's trailing bytes counted, a bad stored time said as that run's value."""

from __future__ import annotations

import gzip
import io

import pytest

from runtime_lab import config, record, registry
from runtime_lab.options import form_defaults
from runtime_lab.quote import cut, given, quote
from runtime_lab.record import Run
from runtime_lab.spec import SpecError, build_spec
from runtime_lab.store import bundle, gzipped
from runtime_lab.store.history import History, HistoryError
from runtime_lab.ui import links

LONG = "x" * 100_000


def test_quote_cuts_at_40_characters_and_says_the_length():
    assert quote("abc") == "'abc'"
    assert quote(LONG) == "'" + "x" * 40 + "'… (100,000 characters)"
    assert quote("a\nb\x1b[31m") == "'a\\nb\\x1b[31m'"  # one line, escapes shown, not acted on
    assert cut(LONG) == "x" * 40 + "… (100,000 characters)" and cut("name") == "name"


@pytest.mark.parametrize(
    ("value", "shown"),
    [("1e3", "1e3"), ("+05000", "+05000"), (" 2000 ", "2000"), ("00", "00"), (3000.0, "3000.0")]
    + [(2000, "2000"), ("abc", "'abc'"), ("9" * 50, "'" + "9" * 40 + "'… (50 characters)")],
)
def test_given_echoes_a_number_as_typed(value, shown):
    assert given(value) == shown


def _link_problems(query):
    info = registry.EXPERIMENTS["fusion"]
    values = {"dtype": "float32", "device": "auto", "l2_flush": True, **form_defaults(info, True)}
    return links.from_query(info, query, values, ["auto", "cpu"])[1]


@pytest.mark.parametrize("field", ["dtype", "device", "repeat", "fullgraph", "dynamic", "modes"])
def test_a_100000_character_link_value_is_cut_with_its_length(field):
    message = _link_problems({field: LONG})[field]
    assert "x" * 41 not in message and "(100,000 characters)" in message, message
    assert len(message) < 300


def test_a_100000_character_link_field_name_is_cut_too():
    problems = _link_problems({LONG: "1"})
    assert list(problems) == ["x" * 40 + "… (100,000 characters)"]
    assert "is not a field of fusion" in next(iter(problems.values()))


@pytest.mark.parametrize(
    ("field", "typed", "said"),
    [
        ("seed", "9" * 25, "9" * 25 + " is out of range"),  # was 2147483648, never typed
        ("warmup", "+0005000", "+0005000 is out of range"),  # was 5000
        ("warmup", 3000.0, "3000.0 is out of range"),
        ("repeat", "00", "00 is out of range"),
        ("device", LONG, "(100,000 characters) is not a device"),
    ],
)
def test_a_spec_message_quotes_the_value_as_given(field, typed, said):
    with pytest.raises(SpecError) as caught:
        build_spec("fusion", "64x64", **{field: typed})
    assert said in caught.value.problems[field], caught.value.problems


@pytest.mark.parametrize(
    ("stamp", "said"),
    [
        (float("nan"), "not a time (NaN)"),
        (float("inf"), "not a time (Infinity)"),
        (1e300, "not a time (1e+300)"),
        ("NaN", 'not a time ("NaN")'),
        (None, "not a time (null)"),
        (True, "not a time (true)"),
    ],
)
def test_a_bad_stored_time_is_said_never_raised(stamp, said):
    assert record.when(stamp) == said


def test_a_good_time_is_a_local_date():
    assert record.when(1_700_000_000.5)[:4] in ("2023",)
    assert len(record.when(1_700_000_000)) == len("2023-11-14 22:13:20")


def _run(**times):
    base = {"created_at": 1_700_000_000.0, "started_at": None, "finished_at": None}
    return Run(job_id="j1", label="streams 64", spec={}, env={}, **{**base, **times})


def test_history_refuses_a_nan_time_as_that_runs_value_not_a_database_fault(tmp_path):
    """SQLite stores NaN as NULL: a NaN created_at failed NOT NULL, which read as "history
    database … is unreadable" (and later as a duplicate run)."""
    history = History(tmp_path / "h.sqlite3")
    for field in ("created_at", "started_at", "finished_at"):
        with pytest.raises(HistoryError) as caught:
            history.add(_run(**{field: float("nan")}))
        message = str(caught.value)
        assert (
            message == f"run 'streams 64' cannot be stored: {field} is NaN, not a time "
            "(Unix seconds, a finite number)"
        )
    assert history.list() == []  # nothing stored
    assert record.time_problem(_run(started_at=1_700_000_001.0)) is None
    assert "created_at is null" in record.time_problem(_run(created_at=None))


def _gz(text=b'{"a": 1}'):
    # mtime=0: a gzip header holds the time; xdist workers collect the ids apart, so a
    # header made in different seconds gave two test lists and the tier failed to start
    return gzip.compress(text, mtime=0)


@pytest.mark.parametrize(
    ("tail", "count"),
    [(b"garbage", 7), (b"x", 1), (b"\0\0x", 3), (b"\x1f\x8bxx", 4), (_gz()[:10], 10)],
)
def test_bytes_after_the_gzip_data_are_counted(tail, count):
    assert gzipped.trailing(io.BytesIO(_gz() + tail), bundle.MAX_BYTES) == count
    with pytest.raises(bundle.BundleError) as caught:
        bundle.read(io.BytesIO(_gz() + tail))
    said = f"the bundle has {count} byte{'s' if count > 1 else ''} after the end of its gzip data"
    assert str(caught.value).startswith(said), caught.value


def test_whole_gzip_data_has_nothing_after_it_and_other_faults_keep_their_messages():
    two = _gz(b'{"a": ') + _gz(b"1}")  # members one after another are one gzip stream
    assert gzipped.trailing(io.BytesIO(two), bundle.MAX_BYTES) is None
    assert bundle.read(io.BytesIO(two)) == {"a": 1}
    assert gzipped.trailing(io.BytesIO(b"not gzip"), bundle.MAX_BYTES) is None
    for data, said in ((b"{}", "not gzip-compressed"), (_gz()[:-3], "truncated")):
        with pytest.raises(bundle.BundleError, match=said):
            bundle.read(io.BytesIO(data))


def test_a_bomb_is_not_unpacked_twice():
    bomb = gzip.compress(b"\0" * (8 << 20)) + b"tail"
    assert gzipped.trailing(io.BytesIO(bomb), max_output=1 << 20) is None


def test_kernel_filesystems_are_found_from_the_mount_table(tmp_path, monkeypatch):
    mounts = tmp_path / "mounts"
    mounts.write_text(
        "proc /proc proc rw 0 0\nsysfs /sys sysfs rw 0 0\n/dev/sda1 / ext4 rw 0 0\n"
        "tmpfs /sys/fs/cgroup tmpfs rw 0 0\nfoo /mnt/with\\040space proc rw 0 0\n"
    )
    monkeypatch.setattr(config, "MOUNTS", str(mounts))
    assert config.kernel_fs("/proc/x") == "proc" and config.kernel_fs("/sys") == "sysfs"
    assert config.kernel_fs("/sys/fs/cgroup/x") is None  # a tmpfs inside /sys holds files
    assert config.kernel_fs("/mnt/with space/x") == "proc"  # the table's octal escapes
    assert config.kernel_fs(tmp_path) is None and config.kernel_fs("/processes") is None
    assert "parent /proc is on proc" in config.dir_problem("/proc/x")
    monkeypatch.setattr(config, "MOUNTS", str(tmp_path / "none"))
    assert config.kernel_fs("/proc/x") is None  # no table: the usual checks decide
