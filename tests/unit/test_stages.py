"""A job's timeline: the worker keeps each change of stage; the views say where the time went."""

from __future__ import annotations

import json
from types import SimpleNamespace

from runtime_lab.runner import worker_progress
from runtime_lab.view import stages


class _Pipe:
    def __init__(self):
        self.sent = []

    def send_bytes(self, data: bytes) -> None:
        self.sent.append(json.loads(data))


def test_every_change_of_stage_is_kept_without_its_counters(monkeypatch):
    now = [10.0]
    monkeypatch.setattr(worker_progress.time, "monotonic", lambda: now[0])
    pipe = _Pipe()
    progress = worker_progress.Progress(pipe, "j1", started_mono=10.0)
    for i in range(3):  # counters do not make new stages
        progress(f"eager: timing {i + 1}/3", i + 1, 3)
        now[0] += 0.25
    now[0] = 11.0
    progress("inductor: first call")
    now[0] = 12.0
    progress.mark("[headline ready]")
    timeline = progress.timeline(finished_mono=13.5)
    assert [s["stage"] for s in timeline] == [
        "eager: timing",
        "inductor: first call",
        "[headline ready]",
    ]
    assert [s["start_s"] for s in timeline] == [0.0, 1.0, 2.0]
    assert [s["took_s"] for s in timeline] == [1.0, 1.0, 1.5]
    assert all(m["op"] == "progress" for m in pipe.sent)  # marks add no messages of their own


def test_the_timeline_stops_growing_at_its_cap():
    progress = worker_progress.Progress(_Pipe(), "j", started_mono=0.0)
    for i in range(worker_progress.MAX_STAGES + 50):
        progress.mark(f"sweep {i}² step")
    assert len(progress.stages) == worker_progress.MAX_STAGES


def _run(rows, **worker):
    return SimpleNamespace(worker={"stages": rows, **worker})


ROWS = [
    {"stage": "process probe", "start_s": 0.0, "took_s": 0.1},
    {"stage": "inductor: first call", "start_s": 0.1, "took_s": 4.0},
    {"stage": "eager: timing", "start_s": 4.1, "took_s": 1.0},
    {"stage": "[headline ready]", "start_s": 5.1, "took_s": 0.4},
    {"stage": "inductor: profiling", "start_s": 5.5, "took_s": 2.5},
    {"stage": "eager: timing", "start_s": 8.0, "took_s": 2.0},
]


def test_the_frame_splits_at_the_headline_and_sums_a_stage_that_comes_back():
    frame = stages.stage_frame(_run(ROWS))
    assert list(frame["phase"]) == [stages.BEFORE] * 3 + [stages.AFTER] * 3
    assert frame["share_pct"].sum() == 100.0
    summed = stages.by_stage(frame)
    assert summed.iloc[0]["stage"] == "inductor: first call"
    timing = summed[summed["stage"] == "eager: timing"]
    assert sorted(timing["took_s"]) == [1.0, 2.0]  # one per phase, never merged across it
    line = stages.time_line(_run(ROWS))
    assert line == (
        "10.0 s in the worker, headline ready at 5.1 s; longest: inductor: first call 4.0 s, "
        "inductor: profiling 2.5 s, eager: timing 2.0 s"
    )
    chart = stages.stage_chart(frame).to_dict()
    assert chart["mark"]["type"] == "bar" and len(chart["datasets"][chart["data"]["name"]]) == 6


def test_a_run_without_a_timeline_or_a_headline():
    assert stages.stage_frame(_run(None)) is None and stages.time_line(_run([])) is None
    assert stages.time_line(SimpleNamespace(worker=None)) is None
    whole = stages.stage_frame(_run(ROWS[:3]))
    assert set(whole["phase"]) == {stages.WHOLE}
    assert stages.time_line(_run(ROWS[:3])).startswith("5.1 s in the worker; longest:")


def test_the_worker_line_says_what_shared_the_host():
    run = _run(
        ROWS,
        pid=42,
        jobs_before=0,
        started_as_spare=True,
        fresh_after_disturbed=True,
        previous_disturbed_by=["profiler"],
        spare_started_during_evidence=True,
        forked=True,
    )
    run.process_probe = {"baseline": {"prewarm": "done", "prewarm_s": 2.9}}
    line = stages.worker_line(run)
    assert line.startswith("Worker pid 42, started as a warm spare")
    assert "tiny compile at start (2.9 s" in line and "forked from the lab's zygote" in line
    assert "its predecessor ran profiler" in line and "evidence phase" in line
    assert "zygote_prewarm" not in line and "done once in the zygote" not in line
    run.process_probe = {"baseline": {"zygote_prewarm": "done", "zygote_prewarm_s": 3.3}}
    line = stages.worker_line(run)
    assert "done once in the zygote (3.3 s there" in line and "tiny compile at start" not in line
    assert stages.worker_line(_run(ROWS)) is None
