"""The process checks without a worker: probe flagging, contended timings, tool tracking,
the history migration that adds the new columns."""

from __future__ import annotations

import contextlib
import dataclasses
import gzip
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
import torch

from runtime_lab import envvars, registry
from runtime_lab.env import THREADS_ENV, choose_torch_threads
from runtime_lab.lab import tooling
from runtime_lab.lab.timing import measure
from runtime_lab.record import Run
from runtime_lab.results import CONTENDED_OTHERS_PCT, Timing, from_plain, to_plain
from runtime_lab.runner import probe as probe_figures
from runtime_lab.store.history import History

ROOT = Path(__file__).resolve().parents[2]

LEGACY = Path(__file__).parents[1] / "fixtures" / "legacy" / "history-v0.1.sql.gz"
BASE = {"dispatch_us": 2.0, "launch_us": 8.0, "graph_replay_us": 6.0}


def _probe(**changes):
    return {**BASE, **changes}


@pytest.mark.parametrize(
    ("launch_us", "flagged"),
    [(8.0 * 1.19, False), (8.0 * 1.20, False), (8.0 * 1.21, True), (12.1, True), (4.0, False)],
)
def test_a_probe_is_flagged_only_above_twenty_percent(launch_us, flagged):
    probe = probe_figures.compare(_probe(launch_us=launch_us), BASE)
    assert probe["flagged"] is flagged
    assert probe["ratios"]["launch_us"] == pytest.approx(launch_us / 8.0, abs=1e-3)
    assert probe["job"]["launch_us"] == launch_us and probe["baseline"] == BASE
    assert (probe["reason"] is not None) is flagged


def test_the_reason_names_each_inflated_figure_with_both_numbers():
    probe = probe_figures.compare(_probe(launch_us=12.1, graph_replay_us=9.8), BASE)
    assert probe["reason"] == (
        "process state inflated host-side times: launch 12.1 µs vs 8.0 µs at worker start "
        "(+51 %); graph replay 9.8 µs vs 6.0 µs at worker start (+63 %)"
    )


def test_missing_figures_are_skipped_not_flagged():
    cpu = {"dispatch_us": 2.1, "launch_us": None, "graph_replay_us": None}
    probe = probe_figures.compare(cpu, {**cpu, "dispatch_us": 2.0})
    assert probe["ratios"] == {"dispatch_us": 1.05} and not probe["flagged"]
    assert not probe_figures.compare({"error": "boom"}, None)["flagged"]


def _selftest_run(**extra) -> Run:
    result = {"behaviour": "ok", "slept_s": 0.0, "pid": 1}
    return Run(status="done", spec={"experiment": "selftest"}, result=result, **extra)


def test_every_report_warns_of_a_flagged_probe():
    probe = probe_figures.compare(_probe(launch_us=12.1), BASE)
    warnings = registry.build_report(_selftest_run(process_probe=probe)).warnings
    assert warnings == (probe["reason"],)
    clean = probe_figures.compare(BASE, BASE)
    assert registry.build_report(_selftest_run(process_probe=clean)).warnings == ()
    assert registry.build_report(_selftest_run()).warnings == ()  # runs stored before


def _timing(label, others):
    plain = to_plain(Timing(label, "host-wall", (), (1.0, 1.1), 2.0, 0, 2, False))
    return {**plain, "cpu_others_pct": others}


def test_contended_timings_are_found_anywhere_in_a_result_and_warned_of():
    result = {
        "timings": [_timing("eager", 10.0), _timing("compiled", 40.0)],
        "modes": [{"mode": "x", "timing": _timing("graph", 26.0)}],
        "old": {"clock": "host-wall", "host_ms": [1.0]},  # stored before the fields existed
    }
    assert probe_figures.contended_timings(result) == [("compiled", 40.0), ("graph", 26.0)]
    (warning,) = probe_figures.warnings(Run(spec={}, result=result))
    assert "up to 40 % of the host's cores during 2 timed phase(s) (compiled, graph)" in warning
    assert f"flagged above {CONTENDED_OTHERS_PCT:.0f} %" in warning
    assert probe_figures.warnings(Run(spec={}, result={"t": _timing("calm", 25.0)})) == []


def test_a_timing_stored_before_the_cpu_fields_loads_uncontended():
    old = {k: v for k, v in _timing("x", None).items() if not k.startswith("cpu_")}
    timing = from_plain(Timing, old)
    assert timing.cpu_others_pct is None and not timing.contended
    assert from_plain(Timing, _timing("x", 30.0)).contended


def _busy_loops(count):
    code = "import time\nend = time.time() + 30\nwhile time.time() < end: pass\n"
    return [subprocess.Popen([sys.executable, "-c", code]) for _ in range(count)]


def test_measure_records_who_used_the_cpu_during_the_timed_phase():
    cpu = torch.device("cpu")
    calm = measure(
        lambda: time.sleep(0.01), device=cpu, label="s", warmup=0, repeat=15, l2_flush=False
    )
    assert 0 <= calm.cpu_others_pct <= 100 and 0 <= calm.cpu_self_pct <= 100
    short = measure(lambda: None, device=cpu, label="t", warmup=0, repeat=3, l2_flush=False)
    assert short.cpu_others_pct is None and not short.contended  # too short to tell
    hogs = _busy_loops(psutil.cpu_count())
    try:
        time.sleep(0.3)
        loaded = measure(
            lambda: time.sleep(0.01), device=cpu, label="s", warmup=0, repeat=30, l2_flush=False
        )
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert loaded.contended, loaded.cpu_others_pct
    assert loaded.cpu_others_pct > 50 and loaded.cpu_self_pct < 10
    assert len(loaded.host_ms) == 30  # the old fields as they were


def test_tooling_notices_profilers_and_memory_history_but_not_turning_it_off():
    # another test of this process may have imported the sanitizer, which (rightly) reads as on
    preloaded = "torch.cuda._sanitizer" in sys.modules

    def take():
        return [r for r in tooling.take() if not (preloaded and r == "cuda-sanitizer")]

    tooling.install()
    tooling.install()  # idempotent: never wrapped twice
    take()
    with torch.autograd.profiler.profile():
        torch.ones(2).add_(1)
    assert take() == ["profiler"]
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]):
        torch.ones(2).add_(1)
    assert take() == ["profiler"] and take() == []
    for enabled in (None, False):
        with contextlib.suppress(AttributeError):  # a CPU build has no recorder
            torch.cuda.memory._record_memory_history(enabled)
    assert take() == []
    cuda = torch.cuda.is_available()
    with contextlib.nullcontext() if cuda else pytest.raises(AttributeError):
        torch.cuda.memory._record_memory_history(max_entries=10)  # noted even when it fails
    if cuda:
        torch.cuda.memory._record_memory_history(None)
    assert take() == ["memory-history"]


def test_choose_torch_threads(monkeypatch):
    monkeypatch.setattr(envvars, "cores", lambda: 8)
    monkeypatch.setenv(THREADS_ENV, "5")
    assert choose_torch_threads() == (5, THREADS_ENV)
    for bad in ("0", "lots", "", "9", "²", "1e3"):  # past the cores, or not ASCII digits
        monkeypatch.setenv(THREADS_ENV, bad)
        threads, source = choose_torch_threads()
        assert threads >= 1 and source == "physical cores - 1"


def test_a_history_written_before_gains_the_new_columns(tmp_path):
    path = tmp_path / "history.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.executescript(gzip.decompress(LEGACY.read_bytes()).decode())
        old_ids = [r[0] for r in conn.execute("SELECT id FROM runs")]
        assert "process_probe_json" not in {r[1] for r in conn.execute("PRAGMA table_info(runs)")}
    history = History(path)
    assert history.notice is None
    old = history.get(old_ids[0])
    assert old["process_probe"] is None and old["worker"] is None and old["spec"]
    probe = probe_figures.compare(BASE, BASE)
    run = _selftest_run(process_probe=probe, worker={"pid": 1, "jobs_before": 0})
    stored = {"job_id": "j", "experiment": "selftest", "device": "cpu", "label": "selftest"}
    run_id = history.add(dataclasses.replace(run, **stored, env={}, created_at=1.0))
    again = History(path).get(run_id)  # reopening does not migrate twice
    assert again["process_probe"] == probe and again["worker"] == {"pid": 1, "jobs_before": 0}
    assert len(history.list(limit=1000)) == len(old_ids) + 1


def test_tooling_never_imports_the_sanitizer_and_notices_a_job_that_did():
    """Importing torch.cuda._sanitizer turns on Python GPU-trace callbacks for every launch (the
    H200 eager 256² loop went from 26.8 to 103.6 µs/call): the watcher must not do it itself."""
    code = (
        "import sys\n"
        "from runtime_lab.lab import tooling\n"
        "tooling.install(); print(tooling.take(), 'torch.cuda._sanitizer' in sys.modules)\n"
        "import torch.cuda._sanitizer\n"
        "print(tooling.take())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["[] False", "['cuda-sanitizer']"]


def test_a_run_alongside_other_workers_jobs_is_warned_of_by_name():
    alongside = [{"job_id": "x", "lane": "cpu", "label": "fusion 512x512 float32 cpu"}]
    run = _selftest_run(worker={"pid": 1, "alongside": alongside})
    [warning] = registry.build_report(run).warnings
    assert warning.startswith("ran alongside 1 job(s) on other workers of this host (cpu: fusion")
    assert "host-side figures may be inflated" in warning
    alone = _selftest_run(worker={"pid": 1, "alongside": []})
    assert registry.build_report(alone).warnings == ()
