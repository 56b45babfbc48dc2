"""Issue 49, speed, through the real worker: a run that changes only its timed calls takes the
earlier run's compile latency and evidence instead of compiling cold and tracing again."""

import json

import pytest

from runtime_lab.cli.main import EXIT_OK, main

pytestmark = pytest.mark.slow  # three CLI runs; two compile cold and trace on 2 cores

FIGURES = ("cold_compile_s", "warm_cache_compile_s", "warm_process_s")
# what a run that measures its compile figures does in its worker, and a reusing one must not
MEASURING = ("compile trace", "cold compile", "compile with the persistent cache")


def _run(tmp_path, name: str, *extra: str) -> dict:
    out = tmp_path / f"{name}.json"
    argv = ["--data-dir", str(tmp_path / "data"), "run", "fusion", "--device", "cpu"]
    argv += ["--shape", "128x128", "--modes", "eager,inductor", "--warmup", "1"]
    argv += [*extra, "--json", str(out)]
    assert main(argv) == EXIT_OK
    return json.loads(out.read_text())


def _stages(document: dict) -> list[str]:
    return [s["stage"] for s in document["worker"]["stages"]]


def _inductor(document: dict) -> dict:
    return next(m for m in document["result"]["modes"] if m["mode"] == "inductor")


def test_a_run_that_changes_only_its_timed_calls_takes_the_compile_figures(tmp_path):
    first = _run(tmp_path, "first", "--repeat", "3")
    assert first["result"]["compile_from_run"] is None
    assert any(m in s for s in _stages(first) for m in MEASURING)
    second = _run(tmp_path, "second", "--repeat", "2")
    assert second["result"]["compile_from_run"] == first["id"]
    before, after = first["summary"], second["summary"]
    assert after["compile_from_run"] == first["id"] and "compile_from_run" not in before
    for name in FIGURES:
        assert after[name] == before[name], name
    assert after["cold_compile_cache_state"] == before["cold_compile_cache_state"] == "empty"
    # the warm-cache compile found what the first run wrote: 'this run' there, its number here
    assert before["warm_cache_compile_cache_state"] == "warm from this run"
    assert after["warm_cache_compile_cache_state"] == f"warm from run #{first['id']}"
    assert after["naive_speedup_cache_state"] == "empty"  # the first run's cold first call
    assert not [s for s in _stages(second) for m in MEASURING if m in s], _stages(second)
    # its own first call loaded what the first run compiled, and is kept beside the taken ones
    own = _inductor(second)["compile"][-1]
    assert own["scenario"] == "this run's first call" and own["measured_in_run"] is None
    assert own["cache_dirs"] == "persistent" and own["warm_from_runs"] == [first["id"]]
    assert after["first_call_cache_state"]["inductor"] == f"warm from run #{first['id']}"
    taken = _inductor(second)["compile"][:-1]
    assert [c["scenario"] for c in taken] == [c["scenario"] for c in _inductor(first)["compile"]]
    assert {c["measured_in_run"] for c in taken} == {first["id"]}
    assert _inductor(second)["compile_evidence"] == _inductor(first)["compile_evidence"]
    # off: everything measured again, as the first run did
    third = _run(tmp_path, "third", "--repeat", "2", "--reuse-compile", "false")
    assert (
        third["result"]["compile_from_run"] is None and "compile_from_run" not in third["summary"]
    )
    assert any("compile trace" in s for s in _stages(third))
    assert _inductor(third)["compile"][0]["cache_dirs"] == "empty"
    assert third["summary"]["cold_compile_s"] != before["cold_compile_s"]
