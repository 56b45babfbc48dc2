"""A fusion job times everything before its first profiler session; the ceiling cache (CPU)."""

import json

import pytest
import torch

from runtime_lab import config
from runtime_lab.fusion.run import clocks as run_clocks
from runtime_lab.fusion.run import experiment as fusion
from runtime_lab.fusion.run import sweep as run_sweep
from runtime_lab.lab import ceiling, clocks, profiling
from runtime_lab.lab.base import Context
from runtime_lab.results import stats
from runtime_lab.spec import build_spec

pytestmark = pytest.mark.slow  # compiles with Inductor in this process (seconds)

CPU = torch.device("cpu")


def _recording(monkeypatch, events: list):
    """Wrap every timed phase and the profiler's context manager so their order is recorded."""

    def wrap(module, name, tag):
        real = getattr(module, name)

        def recorded(*args, **kwargs):
            events.append(tag)
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, recorded)

    wrap(fusion, "measure", "measure")
    wrap(run_clocks, "measure_loop", "loop")
    wrap(run_sweep, "measure", "sweep")
    wrap(run_sweep, "measure_loop", "sweep")
    wrap(ceiling, "measure", "ceiling")
    wrap(run_clocks, "do_bench_clock", "clock")
    real_bench = run_clocks.benchmark_clock
    monkeypatch.setattr(
        run_clocks,
        "benchmark_clock",
        lambda fn, device, **kw: events.append("clock") or real_bench(fn, device, 0.02, **kw),
    )
    wrap(profiling, "profile", "profile")


def test_no_profiler_session_precedes_a_timed_phase(monkeypatch):
    events: list[str] = []
    _recording(monkeypatch, events)
    monkeypatch.setattr(ceiling, "CEILING_BYTES", {"cpu": 3 << 20, "cuda": 3 << 20})
    monkeypatch.setattr(ceiling, "ADD_BYTES", {"cpu": 3 << 20, "cuda": 3 << 20})
    options = {"modes": "eager,inductor", "compile_latency": False, "sweep": "32"}
    spec = build_spec("fusion", "64x64", device="cpu", warmup=1, repeat=3, options=options)
    result = fusion.run(spec, Context(device=CPU, progress=lambda *a: None))

    assert "profile" in events, events
    first_profile = events.index("profile")
    timed = [i for i, e in enumerate(events) if e != "profile"]
    assert max(timed) < first_profile, events
    # every kind of timed phase ran: per mode the harness, the loop and two other clocks
    for tag, count in (("measure", 2), ("loop", 2), ("clock", 4), ("sweep", 4), ("ceiling", 2)):
        assert events.count(tag) == count, (tag, events)
    assert result.timed_before_profiling
    for mode in result.modes:
        assert mode.ran and mode.kernels and mode.trace_file  # profiled after all, same callable
        assert [c.clock for c in mode.clocks] == ["lab", "torch.utils.benchmark"]
        assert mode.clocks[0].samples_ms == mode.timing.primary_ms
    assert result.add_gbps > 0 and result.copy_ceiling_gbps > 0
    assert result.ceiling_gbps == max(result.add_gbps, result.copy_ceiling_gbps)


def test_clocks_on_cpu_are_lab_shaped():
    x = torch.randn(32, 32)
    reading = clocks.benchmark_clock(lambda: x + x, CPU, min_run_time_s=0.02)
    assert reading["clock"] == "torch.utils.benchmark"
    assert reading["samples_ms"] and min(reading["samples_ms"]) > 0
    assert reading["median_ms"] == stats(reading["samples_ms"]).median
    assert f"{torch.get_num_threads()} threads" in reading["detail"]
    assert "blocked_autorange" in reading["detail"]
    # sized from the lab's median: ~20 ms blocks, as many as fit the run time (3 to 10)
    sized = clocks.benchmark_clock(lambda: x + x, CPU, min_run_time_s=0.02, typical_s=1e-3)
    assert len(sized["samples_ms"]) == clocks.MIN_BLOCKS and min(sized["samples_ms"]) > 0
    assert "3 blocks × 20 back-to-back call(s) (Timer.timeit" in sized["detail"]
    assert clocks.do_bench_clock(lambda: x + x, CPU) is None  # CUDA only


def test_an_old_ceiling_entry_is_measured_again_and_the_sidebar_still_reads_it(
    data_dir, monkeypatch
):
    monkeypatch.setattr(ceiling, "CEILING_BYTES", {"cpu": 3 << 20, "cuda": 3 << 20})
    monkeypatch.setattr(ceiling, "ADD_BYTES", {"cpu": 3 << 20, "cuda": 3 << 20})
    data_dir.mkdir(parents=True, exist_ok=True)
    key = ceiling._key(CPU)
    old = {key: {"gbps": 1.0, "bytes": 1, "measured_at": 0.0}}  # written before the add existed
    (data_dir / config.CEILING_FILE).write_text(json.dumps(old))
    found = ceiling.ceilings(CPU, data_dir)
    assert found["copy_ceiling_gbps"] != 1.0 and found["add_gbps"] > 0
    assert found["ceiling_gbps"] == max(found["add_gbps"], found["copy_ceiling_gbps"])
    assert found["ceiling_source"] in ("copy", "add (2 reads + 1 write)")
    assert found["theoretical_gbps"] is None and "not available" in found["theoretical_detail"]
    stored = json.loads((data_dir / config.CEILING_FILE).read_text())[key]
    assert stored["add_gbps"] == found["add_gbps"]
    assert config.load_ceilings(data_dir) == {key: found["copy_ceiling_gbps"]}
    # cached now: a second call measures nothing
    monkeypatch.setattr(ceiling, "measure", lambda *a, **k: pytest.fail("measured again"))
    assert ceiling.ceilings(CPU, data_dir) == found


def test_a_slow_call_gets_fewer_loop_calls_and_stays_within_the_budget():
    import time

    import torch

    from runtime_lab.lab.timing import MIN_LOOPS, measure_loop

    calls = []
    started = time.perf_counter()
    loop = measure_loop(
        lambda: (calls.append(1), time.sleep(0.02)), torch.device("cpu"), 200, typical_s=0.02
    )
    took = time.perf_counter() - started
    assert loop.calls == 5 and len(loop.samples_us) >= MIN_LOOPS
    assert len(calls) == loop.calls * (len(loop.samples_us) + 1)  # one untimed loop first
    assert 15_000 < loop.us_per_call < 60_000 and took < 3
    fast = measure_loop(lambda: None, torch.device("cpu"), 200, typical_s=1e-6)
    assert fast.calls == 200 and len(fast.samples_us) == 20  # the loop count caps a fast call
