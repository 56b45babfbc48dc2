"""History never loses a run (issue 26.1, 26.2): a transient open error moves nothing aside and
deletes no WAL; read-only commands change nothing; two imports of one bundle at once store it
once and neither removes the other's files; deleting an imported run removes its files."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from bundledata import ROOT, cli, source

from runtime_lab.store import bundle
from runtime_lab.store.history import History

# A run committed to the WAL and never checkpointed into the main file: the process dies
# right after the commit, as a killed server would (the WAL is then the only copy of the run).
UNCHECKPOINTED = """
import os, sqlite3, sys, time
from runtime_lab.record import Run
from runtime_lab.store.history import History
path = sys.argv[1]
History(path).add(Run(job_id="wal-only", experiment="streams", device="cpu", status="done",
    label="kept only in the WAL", spec={"shape": [4]}, env={}, created_at=time.time()))
conn = sqlite3.connect(path)
conn.execute("PRAGMA wal_autocheckpoint=0")
conn.execute("INSERT INTO runs (job_id, experiment, device, status, label, spec_json, env_json,"
             " created_at) VALUES ('wal-2', 'streams', 'cpu', 'done', 'second', '{}', '{}', 1.0)")
conn.commit()
os._exit(0)  # no close: no checkpoint, the WAL stays
"""

# Exhausts the file descriptors, then opens the history (library and CLI) with none left.
NO_DESCRIPTORS = """
import os, resource, sys
from runtime_lab.store.history import History, HistoryError
from runtime_lab import config
from runtime_lab.cli import main as cli
cli.build_parser()  # its imports are lazy: made now, while files can still be opened
path = sys.argv[1]
resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
held = []
try:
    while True:
        held.append(os.open(os.devnull, os.O_RDONLY))
except OSError:
    pass
try:
    History(path)
    print("opened")
except HistoryError as exc:
    print("HistoryError:", exc)
code = cli.main(["--data-dir", os.path.dirname(path), "history"])
print("history exit", code)
"""


def _wal_only_history(folder: Path) -> Path:
    path = folder / "history.sqlite3"
    done = subprocess.run(
        [sys.executable, "-c", UNCHECKPOINTED, str(path)], cwd=ROOT, capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert Path(f"{path}-wal").stat().st_size > 0  # the second run lives only there
    return path


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


def test_no_file_descriptors_left_is_one_message_and_changes_nothing(tmp_path):
    path = _wal_only_history(tmp_path)
    before = _snapshot(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", NO_DESCRIPTORS, str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert "HistoryError:" in done.stdout and "nothing was changed" in done.stdout, done.stdout
    assert "too many open files" in done.stdout
    assert "history exit 1" in done.stdout
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr  # the CLI's one line
    assert not list(tmp_path.glob("*.corrupt-*"))
    assert _snapshot(tmp_path) == before  # nothing moved, nothing deleted, nothing written
    labels = {r["label"] for r in History(path).list()}
    assert labels == {"kept only in the WAL", "second"}


@pytest.fixture
def tiny_disk(tmp_path):
    """A 3 MiB tmpfs, where the machine lets us mount one (root in a container that allows it)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if shutil.which("mount") is None:
        pytest.skip("no mount command")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(folder: Path) -> Path:
    filler = folder / "filler"
    with open(filler, "wb") as out:
        try:
            while True:
                out.write(b"\0" * 65536)
                out.flush()
        except OSError:
            pass
    return filler


def test_a_full_disk_loses_no_run_and_moves_nothing_aside(tiny_disk, tmp_path):
    packed = tmp_path / "b.json.gz"
    packed.write_bytes(_bundle(tmp_path))
    path = _wal_only_history(tiny_disk)
    filler = _fill(tiny_disk)
    listed = cli(tiny_disk, "history")  # read-only: works on a full disk
    assert listed.returncode == 0, listed.stderr
    assert "kept only in the WAL" in listed.stdout and "second" in listed.stdout
    imported = cli(tiny_disk, "import", str(packed))  # needs space: one line, nothing stored
    assert imported.returncode == 1 and "Traceback" not in imported.stderr, imported.stderr
    assert len(imported.stderr.strip().splitlines()) == 1, imported.stderr
    assert not list(tiny_disk.glob("*.corrupt-*"))
    assert not list((tiny_disk / "imported").rglob("*.json"))
    filler.unlink()
    assert {r["label"] for r in History(path).list()} == {"kept only in the WAL", "second"}


def test_read_only_commands_create_nothing_and_change_nothing(tmp_path):
    missing = tmp_path / "nowhere"
    done = cli(missing, "history")
    assert done.returncode == 0 and "no runs recorded" in done.stderr
    assert not missing.exists()  # not even the data directory
    lab = tmp_path / "lab"
    ids = source(lab, legacy=False)
    main = (lab / "history.sqlite3").read_bytes()
    assert cli(lab, "history").returncode == 0
    assert cli(lab, "compare", str(ids[0]), str(ids[1])).returncode in (0, 2)
    assert cli(lab, "export", *map(str, ids), "--out", str(tmp_path / "b.json.gz")).returncode == 0
    assert (lab / "history.sqlite3").read_bytes() == main


def _bundle(tmp_path: Path) -> bytes:
    lab = tmp_path / "A"
    ids = source(lab, legacy=False)
    return bundle.export_runs(History(lab / "history.sqlite3"), ids, lab)


def test_two_imports_of_one_bundle_at_once_store_it_once(tmp_path):
    """Both pass the quick check before either inserts (the old race): one stores, the other
    is refused inside its transaction and removes only its own files."""
    data = _bundle(tmp_path)
    lab = tmp_path / "B"
    lab.mkdir()
    History(lab / "history.sqlite3")
    both_checked = threading.Barrier(2, timeout=30)
    outcome: dict[str, object] = {}

    def one(name: str) -> None:
        history = History(lab / "history.sqlite3")
        add_many = history.add_many

        def after_the_other_checked(runs):
            both_checked.wait()  # both have passed the duplicate check and written their files
            return add_many(runs)

        history.add_many = after_the_other_checked
        try:
            outcome[name] = bundle.import_bytes(data, history, lab)
        except bundle.BundleError as exc:
            outcome[name] = exc

    threads = [threading.Thread(target=one, args=(n,)) for n in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    stored = [v for v in outcome.values() if isinstance(v, list)]
    refused = [v for v in outcome.values() if isinstance(v, bundle.BundleError)]
    assert len(stored) == 1 and len(refused) == 1, outcome
    assert "is already in history" in str(refused[0])
    history = History(lab / "history.sqlite3")
    assert len(history.list()) == len(stored[0])
    for run_id in stored[0]:  # the winner's files are all there
        for path in _files(history.get(run_id).result):
            assert Path(path).is_file(), path
    folders = [p.name for p in (lab / "imported").iterdir()]
    assert not [f for f in folders if f.startswith(".partial-")], folders


def _files(value) -> list[str]:
    return [holder[key] for _, holder, key in bundle.path_fields(value) if holder[key]]


def test_deleting_an_imported_run_removes_its_files_and_only_its(tmp_path):
    data = _bundle(tmp_path)
    lab = tmp_path / "B"
    lab.mkdir()
    history = History(lab / "history.sqlite3")
    ids = bundle.import_bytes(data, history, lab)
    with_files = [i for i in ids if _files(history.get(i).result)]
    assert len(with_files) >= 2
    gone, kept = with_files[0], with_files[1]
    gone_files, kept_files = _files(history.get(gone).result), _files(history.get(kept).result)
    outside = tmp_path / "mine.json"  # a path outside the import folder is never touched
    outside.write_text("{}")
    assert history.delete(gone) and history.get(gone) is None
    assert not any(Path(p).exists() for p in gone_files)
    assert not Path(gone_files[0]).parent.exists()  # the folder left empty goes too
    assert all(Path(p).is_file() for p in kept_files) and outside.is_file()
    # deleted, it can be imported again (alone: the others are still here)
    doc = json.loads(gzip.decompress(data))
    doc["runs"] = [doc["runs"][ids.index(gone)]]
    [again] = bundle.import_bytes(gzip.compress(json.dumps(doc).encode()), history, lab)
    assert all(Path(p).is_file() for p in _files(history.get(again).result))
