"""Issue 49 through the real worker: two identical fusion runs in one data directory record the
compile-cache state each first call ran with in their --json, the second naming the first."""

import json

import pytest

from runtime_lab.cli.main import EXIT_OK, main

pytestmark = pytest.mark.slow  # two CLI runs, three C++ compiles on 2 cores


def _run(tmp_path, name: str) -> dict:
    out = tmp_path / f"{name}.json"
    argv = ["--data-dir", str(tmp_path / "data"), "run", "fusion", "--device", "cpu"]
    argv += ["--shape", "128x128", "--modes", "eager,inductor,inductor-reduce-overhead"]
    # the first calls are the point: compile latency and the trace are other tests'
    argv += ["--compile-latency", "false", "--compile-trace", "false"]
    argv += ["--warmup", "1", "--repeat", "3", "--json", str(out)]
    assert main(argv) == EXIT_OK
    return json.loads(out.read_text())


def _first_call(document: dict, mode: str) -> dict:
    found = next(m for m in document["result"]["modes"] if m["mode"] == mode)
    return next(c for c in found["compile"] if c["scenario"] == "first call")


def test_the_second_run_says_its_first_call_found_what_the_first_run_compiled(tmp_path):
    first, second = _run(tmp_path, "first"), _run(tmp_path, "second")
    before, after = first["summary"], second["summary"]
    # reduce-overhead compiles with the data directory's caches: empty, then run #1's
    assert before["first_call_cache_state"]["inductor-reduce-overhead"] == "empty"
    warm = f"warm from run #{first['id']}"
    assert after["first_call_cache_state"]["inductor-reduce-overhead"] == warm
    raw = _first_call(second, "inductor-reduce-overhead")
    assert raw["cache_dirs"] == "persistent" and raw["cache_entries_before"] > 0
    assert raw["cache_hit_keys"] and raw["warm_from_runs"] == [first["id"]]
    assert set(raw["cache_writers"]) == {first["result"]["cache_token"]}
    assert set(raw["cache_hit_keys"]) <= set(
        _first_call(first, "inductor-reduce-overhead")["cache_miss_keys"]
    )
    # the naive A/B's compiled arm compiles with empty folders of its own, both times: the
    # default measures what it claims, whatever ran before
    for summary in (before, after):
        assert summary["naive_speedup_cache_state"] == "empty"
        assert summary["first_call_cache_state"]["inductor"] == "empty"
        assert list(summary).index("naive_speedup_cache_state") == (
            list(summary).index("naive_speedup") + 1
        )
    assert _first_call(second, "inductor")["cache_dirs"] == "empty"
    assert _first_call(second, "inductor")["cache_hit_keys"] == []
