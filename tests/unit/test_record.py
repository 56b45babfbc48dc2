"""The run record: one field list, the views the CLI, bundles and history read from it."""

from __future__ import annotations

import dataclasses
import json

import pytest

from runtime_lab import record
from runtime_lab.record import BUNDLE, DOCUMENT, Run
from runtime_lab.report import run_json
from runtime_lab.store.bundle_check import RUN_FIELDS

# the keys of the CLI's --json (before `summary`) and of the pages' Run JSON, as at v0.1
DOCUMENT_KEYS = ["id", "status", "spec", "env", "device", "result", "error", "created_at"]
DOCUMENT_KEYS += ["started_at", "finished_at", "process_probe", "worker"]


def _run(**changes) -> Run:
    base = Run(
        id=3,
        status="done",
        spec={"experiment": "selftest", "shape": [8]},
        env={"hostname": "vm"},
        device="cpu",
        result={"pid": 1},
        created_at=1.5,
        job_id="j",
        experiment="selftest",
        label="selftest 8",
    )
    return dataclasses.replace(base, **changes)


def test_the_document_has_the_keys_the_cli_always_wrote():
    assert list(_run().document()) == DOCUMENT_KEYS
    assert list(json.loads(run_json(_run()))) == DOCUMENT_KEYS


def test_a_bundle_run_carries_what_version_1_always_did():
    rules = {name: (set(types), null) for name, types, null in RUN_FIELDS}
    assert rules == {
        **{name: ({str}, False) for name in ("job_id", "experiment", "device", "status", "label")},
        **{name: ({dict}, False) for name in ("spec", "env", "artefacts")},
        **{name: ({dict}, True) for name in ("result", "process_probe", "worker")},
        "error": ({str}, True),
        "created_at": ({int, float}, False),
        **{name: ({int, float}, True) for name in ("started_at", "finished_at")},
    }
    assert set(record.VIEWS[BUNDLE]) == set(rules) - {"artefacts"}


def test_every_field_is_stored_and_each_view_is_a_part_of_the_one_list():
    assert set(record.VIEWS[DOCUMENT]) | set(record.VIEWS[BUNDLE]) | {"origin"} == set(
        record.FIELDS
    )
    assert record.json_fields() == ("spec", "env", "result", "process_probe", "worker", "origin")


def test_plain_data_reads_as_a_run_whatever_it_lacks_or_adds():
    """A run document (no experiment, a summary), a v0.1 row (no probe, worker, origin)."""
    run = Run.from_dict({"status": "done", "spec": {"experiment": "fusion"}, "summary": {}})
    assert run.experiment == "fusion" and run.env is None and run.origin is None
    assert Run.from_dict(_run().to_dict()) == _run()
    run = _run()
    assert Run.of(run) is run and Run.of(dict(run)) == run


def test_read_only_mapping_for_readers_of_the_old_dict():
    run = _run()
    assert run["spec"] is run.spec and run.get("id") == 3 and run.get("nope", 1) == 1
    assert dict(run) == run.to_dict() and len(run) == len(record.FIELDS)
    with pytest.raises(KeyError):
        run["document"]  # a method, not a field
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.status = "failed"  # type: ignore[misc]
