"""Messages that misled (issue 26), through the CLI: each now says what was wrong with the input,
cuts long values and quotes numbers as typed; one line, no traceback, nothing changed."""

from __future__ import annotations

import gzip
import sqlite3

from bundledata import cli, source, state

from runtime_lab.store import bundle
from runtime_lab.store.history import History


def _one_line(done, code: int) -> str:
    lines = done.stderr.splitlines()
    assert done.returncode == code and len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    return lines[0]


def test_a_bundle_with_bytes_after_its_gzip_data_says_so(tmp_path):
    """It was "the file is not gzip-compressed" for a file that is; now the count of bytes."""
    lab_a, lab_b = tmp_path / "A", tmp_path / "B"
    ids = source(lab_a, legacy=False)[:1]
    packed = bundle.export_runs(History(lab_a / "history.sqlite3"), ids, lab_a)
    lab_b.mkdir()
    History(lab_b / "history.sqlite3")  # an empty lab to import into
    before = state(lab_b)
    for tail, count in ((b"<html>502 Bad Gateway</html>\n", "29 bytes"), (b"\x1f\x8b!", "3")):
        path = tmp_path / "tail.json.gz"
        path.write_bytes(packed + tail)
        line = _one_line(cli(lab_b, "import", str(path)), 2)
        assert f"has {count}" in line and "after the end of its gzip data" in line, line
        assert "not gzip-compressed" not in line
        assert state(lab_b) == before  # nothing imported
    # and a file that is not gzip at all still says that
    path.write_bytes(gzip.decompress(packed))
    assert "not gzip-compressed" in _one_line(cli(lab_b, "import", str(path)), 2)


def test_a_stored_bad_time_is_said_as_that_runs_value_and_the_rest_are_listed(tmp_path):
    """A NaN or Infinity timestamp (stored before imports checked them) was a traceback in
    `history` (and NaN had read as "history database … is unreadable"); now that run's line
    says its time is not one, and every other run is listed."""
    lab = tmp_path / "lab"
    stored = source(lab, legacy=False)
    ids = stored[:3]
    with sqlite3.connect(lab / "history.sqlite3") as conn:
        conn.execute("UPDATE runs SET created_at = 'NaN' WHERE id = ?", (ids[0],))
        conn.execute("UPDATE runs SET created_at = 9e999 WHERE id = ?", (ids[1],))
    done = cli(lab, "history")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    rows = {line.split()[0]: line for line in done.stdout.splitlines()}
    assert len(rows) == len(stored)  # every run, the two bad ones included
    assert 'not a time ("NaN")' in rows[f"#{ids[0]}"]
    assert "not a time (Infinity)" in rows[f"#{ids[1]}"]
    assert "not a time" not in rows[f"#{ids[2]}"]
    assert "unreadable" not in done.stdout + done.stderr


def test_a_number_out_of_range_is_quoted_as_typed(tmp_path):
    """`--seed 99…9` was "2147483648 is out of range" (a value nobody typed); `--warmup +05000`
    was "5000"."""
    for flag, typed in (("--seed", "9" * 25), ("--warmup", "+05000"), ("--repeat", "00")):
        done = cli(tmp_path / "lab", "run", "streams", flag, typed)
        line = _one_line(done, 2)
        assert f"{typed} is out of range" in line, line
    assert not (tmp_path / "lab").exists()
