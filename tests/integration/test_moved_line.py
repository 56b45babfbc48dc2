"""Under a report's headline: what moved since the earlier comparable run (issue 49), on History."""

from __future__ import annotations

import copy
import dataclasses

import pytest
from apphelpers import open_page
from comparedata import CPU_FUSION, legacy_runs, stored

from runtime_lab import ui

PAGE = "app_pages/history.py"


def _fusion(repeat: int, slower: float = 1.0, workload: str = "pointwise"):
    run = stored(legacy_runs()[CPU_FUSION])
    spec, result = copy.deepcopy(run.spec), copy.deepcopy(run.result)
    spec["repeat"] = repeat
    spec["options"]["workload"] = workload
    for mode in result["modes"]:
        if mode["mode"] == "eager":
            mode["timing"]["host_ms"] = [t * slower for t in mode["timing"]["host_ms"]]
    return dataclasses.replace(run, spec=spec, result=result)


@pytest.fixture
def ids(app):
    history = ui.manager().history
    first = history.add(_fusion(50))
    other = history.add(_fusion(50, workload="rms_norm"))  # another function: never "before"
    return first, other, history.add(_fusion(100, slower=3.0))


def _moved(at) -> list[str]:
    return [m.value for m in at.markdown if "Since run #" in m.value]


def test_history_says_what_moved_since_the_earlier_run_of_the_same_workload(app, ids):
    first, _, newest = ids
    at = open_page(app, PAGE)  # opens the newest
    (line,) = _moved(at)
    assert f"Since run #{first}: repeat 50 → 100 · measured speed-up" in line
    assert "beyond noise" in line and "3× higher" in line
    (link,) = [p.proto for p in at.get("page_link") if "Compare" in p.proto.label]
    assert link.label == f"Compare #{first}, #{newest}"
    assert link.query_string == f"compare={first}%2C{newest}"


def test_the_first_run_of_a_workload_has_no_line(app, ids):
    first, _, _ = ids
    app.query_params["run"] = str(first)
    at = open_page(app, PAGE)
    assert _moved(at) == []
