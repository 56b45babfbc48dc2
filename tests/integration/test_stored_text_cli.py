"""The CLI prints stored text as text: an ESC sequence or a newline in a label, host or GPU name
is escaped in `history` and `compare`, so it can't drive the terminal or forge a line; an
imported run is marked in both."""

from __future__ import annotations

import copy
import dataclasses

import pytest
from comparedata import CPU_FUSION, legacy_runs, stored

from runtime_lab.cli.main import main
from runtime_lab.store.history import History

FORGED = "#99    2030-01-01 00:00:00  done      forged run"
LABEL = f"evil\x1b[2J\x1b[31m\r\n{FORGED}\u202e"
HOST = "lab-b\x1b]0;pwned\x07\nforged-host"
GPU = "H200\x1b[5m\x9b31m"
ORIGIN = {"origin_host": HOST, "origin_gpu": GPU, "imported_at": 1.8e9, "fingerprint": "f" * 64}


@pytest.fixture
def ids(data_dir):
    data_dir.mkdir(parents=True, exist_ok=True)
    history = History(data_dir / "history.sqlite3")
    base = legacy_runs()[CPU_FUSION]
    env = copy.deepcopy(base.env) | {"hostname": HOST, "gpus": [{"index": 0, "name": GPU}]}
    local = history.add(dataclasses.replace(stored(base), label=LABEL))
    theirs = dataclasses.replace(stored(base), label=LABEL, env=env, origin=ORIGIN, job_id="b")
    return local, history.add(theirs)


def _printed(capsys, *argv) -> list[str]:
    assert main(list(argv)) == 0
    out = capsys.readouterr().out
    assert not any(c in out for c in "\x1b\r\x07\x9b\u202e"), repr(out)
    return out.splitlines()


def test_history_prints_one_line_per_run_whatever_its_label_holds(ids, capsys):
    local, imported = ids
    lines = _printed(capsys, "history")
    assert len(lines) == 2 and not any(line.startswith("#99") for line in lines)
    escaped = "evil\\x1b[2J\\x1b[31m\\r\\n" + FORGED + "\\u202e"
    assert lines[1].startswith(f"#{local:<5}") and lines[1].endswith(escaped)
    assert lines[0].startswith(f"#{imported:<5}")
    marker = "[imported from lab-b\\x1b]0;pwned\\x07\\nforged-host (H200\\x1b[5m\\x9b31m)]"
    assert lines[0].endswith(f"{escaped}  {marker}")


def test_compare_escapes_host_and_gpu_names_and_marks_the_imported_run(ids, capsys):
    local, imported = ids
    lines = _printed(capsys, "compare", str(local), str(imported))
    host = next(line for line in lines if line.split()[:2] == ["environment", "host"])
    assert "lab-b\\x1b]0;pwned\\x07\\nforged-host" in host
    gpu = next(line for line in lines if line.split()[:2] == ["environment", "GPU"])
    assert gpu.rstrip().endswith("H200\\x1b[5m\\x9b31m")
    recorded = next(line for line in lines if line.split()[:2] == ["environment", "recorded"])
    assert recorded.split()[2] == "here" and "imported from lab-b" in recorded
    assert not any(line.startswith("forged-host") for line in lines)
    assert any(line.strip().startswith(f"#{imported} was imported from lab-b") for line in lines)
