"""A run's recorded workload code must be what it claims: checked on import and on display (issue 38)."""

from __future__ import annotations

import copy
import gzip
import hashlib
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from runtime_lab.store.bundle_check import BundleError, check_run
from runtime_lab.view.code import code_doubt, code_line
from runtime_lab.workloads.provenance import MISMATCH, code_problem

LEGACY = Path(__file__).parents[1] / "fixtures" / "legacy" / "bundle-78431cf.json.gz"
SOURCE = "import torch\n\ndef mine(x):\n    return x * 2\n"
SHA = hashlib.sha256(SOURCE.encode()).hexdigest()


def _code(**change) -> dict:
    return {
        "file": "/home/me/mine.py",
        "sha256": SHA,
        "source": SOURCE,
        "truncated": False,
    } | change


def _run(workload: str, code: dict) -> dict:
    """The legacy bundle's first done fusion run, made a run of `workload` with `code`."""
    runs = json.loads(gzip.decompress(LEGACY.read_bytes()))["runs"]
    run = copy.deepcopy(next(r for r in runs if r["experiment"] == "fusion" and r["result"]))
    run["spec"]["options"]["workload"] = workload
    run["worker"] = {**(run.get("worker") or {}), "workload_code": code}
    return run


def test_code_whose_source_hashes_to_its_sha256_is_taken():
    assert code_problem("mine", _code()) is None
    check_run(1, _run("mine", _code()))  # imports


@pytest.mark.parametrize(
    ("workload", "code", "said"),
    [
        ("mine", _code(source=SOURCE + "import os; os.system('x')\n"), MISMATCH),
        ("mine", _code(sha256="0" * 64), MISMATCH),
        ("softmax", _code(), "workload 'softmax' is built in, yet user code is recorded for it"),
    ],
)
def test_code_that_is_not_what_it_claims_is_refused_on_import(workload, code, said):
    with pytest.raises(BundleError) as refused:
        check_run(1, _run(workload, code))
    assert str(refused.value).startswith(f"run 1: worker.workload_code: {said}")


def test_the_report_and_cli_line_say_so_for_a_run_stored_before_the_check():
    faked = SimpleNamespace(
        spec={"options": {"workload": "mine"}},
        worker={"workload_code": _code(source="print('other code')\n")},
    )
    assert MISMATCH in code_doubt(faked)
    line = code_line(faked)
    assert line.startswith(f"Your workload mine from mine.py, sha256 {SHA[:12]}: {MISMATCH}")
    honest = SimpleNamespace(spec=faked.spec, worker={"workload_code": _code()})
    assert code_doubt(honest) is None and MISMATCH not in code_line(honest)


def test_a_cut_source_is_not_hashed_and_a_file_not_utf8_is_recorded_as_cut(tmp_path):
    from runtime_lab.workloads.user import code_of

    assert code_problem("mine", _code(source=SOURCE[:10], truncated=True)) is None
    odd = tmp_path / "latin1.py"
    odd.write_bytes(b"# caf\xe9\nX = 1\n")
    code = code_of(odd)
    assert code["truncated"] and code_problem("mine", code) is None
    plain = tmp_path / "plain.py"
    plain.write_text(SOURCE)
    assert code_of(plain)["truncated"] is False and code_problem("mine", code_of(plain)) is None
