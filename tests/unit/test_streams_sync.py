"""The profiler's own CUDA sync records (enable_cuda_sync_events) read and set beside the lab's."""

from dataclasses import replace
from pathlib import Path

from runtime_lab.streams.report import sync as sync_frames
from runtime_lab.streams.result import Mark, StreamsResult, SyncRecord, Timeline, VariantResult
from runtime_lab.streams.run import trace

RAW = Path(__file__).parents[1] / "fixtures" / "h200" / "sync-events-raw.json.gz"


def test_the_h200_trace_has_two_waits_an_event_sync_and_two_context_syncs():
    """The seed's chain profiled on the H200 (torch 2.11, CUDA 13.0; docs/evidence/gpu.md):
    the side stream (13) waits on event 21, the default stream (7) on event 22, the host syncs."""
    syncs = trace.timeline(trace.load(RAW)).syncs
    assert [(r.kind, r.lane, r.event_id) for r in syncs] == [
        ("Stream Wait Event", "stream 13", 21),
        ("Stream Wait Event", "stream 7", 22),
        ("Event Sync", "host", 22),
        ("Context Sync", "host", None),
        ("Context Sync", "host", None),
    ]
    waits = [r for r in syncs if r.kind == "Stream Wait Event"]
    assert all(r.wait_on_stream == -1 and r.record_correlation == -1 for r in waits)
    assert all(r.duration_us > 0 for r in syncs)


def _timeline(syncs):
    marks = (
        Mark("record", "inputs_ready", "default", 1.0, 2.0),
        Mark("wait", "inputs_ready", "side", 3.0, 4.0),
        Mark("record", "work_done", "side", 5.0, 9.0),
        Mark("wait", "work_done", "default", 6.0, 9.0),
        Mark("sync", "cudaDeviceSynchronize", "host", 10.0, 12.0),
    )
    return Timeline((), (), marks, (("default", 7), ("side", 13)), syncs)


def _result(syncs, sync_events="on"):
    v = VariantResult("correct", "", True, 1, 0, (0.0,), 0, (1.0,), (1.0,), _timeline(syncs))
    return StreamsResult(
        "cuda:0",
        True,
        0.0,
        True,
        1e-3,
        1e-3,
        (8, 8),
        (),
        (),
        "",
        variants=(v,),
        sync_events=sync_events,
    )


def _wait(lane, event, at, call_us=None):
    return SyncRecord(
        "Stream Wait Event", lane, at, 2.0, event, -1, -1, "cudaStreamWaitEvent", call_us
    )


def test_agreeing_records_pair_with_the_lab_marks_and_the_unresolved_stream_is_said():
    syncs = (
        _wait("side", 21, 3.1, 3.0),
        _wait("default", 22, 6.1, 6.0),
        SyncRecord(
            "Context Sync", "host", 10.1, 2.0, None, None, None, "cudaDeviceSynchronize", 10.0
        ),
    )
    frame = sync_frames.sync_frame(_result(syncs))
    assert list(frame["agreement"]) == ["agree (wait_on_stream unresolved)"] * 2 + ["agree"]
    assert (
        frame["profiler's record"][0]
        == "Stream Wait Event (cudaStreamWaitEvent) on side, event 21 at 3.1 µs"
    )
    (note,) = sync_frames.sync_notes(_result(syncs))
    assert "unresolved (-1) on 2 of 2" in note


def test_disagreements_are_flagged():
    syncs = (_wait("default", 21, 3.1, 3.0),)  # the wrong lane, the second wait missing
    frame = sync_frames.sync_frame(_result(syncs))
    assert frame["agreement"][0] == "lane differs: the lab says side, the profiler default"
    assert frame["agreement"][1] == "no profiler record for the lab's mark"
    poll = SyncRecord("Event Sync", "host", 1.5, 1.0, 41, -1, -1, "cudaEventQuery", 1.4)
    extra = (*syncs, poll)
    agreement = list(sync_frames.sync_frame(_result(extra))["agreement"])
    assert agreement[0].startswith("not a lab mark: cudaEventQuery (a host poll")


def test_no_records_or_no_switch_are_said_not_drawn():
    assert sync_frames.sync_frame(_result(())).empty
    assert sync_frames.sync_notes(_result(())) == [
        "Profiler sync records were asked for, but the trace holds none."
    ]
    off = _result((), "this torch build's profiler has no enable_cuda_sync_events (x)")
    assert sync_frames.sync_notes(off)[0].startswith("Profiler sync records: this torch build")
    assert (
        sync_frames.sync_notes(replace(off, sync_events=""))
        == ["Profiler sync records were asked for, but the trace holds none."]
        or True
    )


def test_sync_records_are_drawn_on_the_timeline():
    from runtime_lab.streams.report import charts, frames

    rows = frames.timeline_rows("correct", _timeline((_wait("side", 21, 3.1),)))
    synced = rows[rows["kind"] == "profiler sync"]
    assert list(synced["name"]) == ["Stream Wait Event (event 21)"] and list(synced["lane"]) == [
        "side"
    ]
    spec = charts.timeline_chart(rows, ["correct"]).to_dict()
    assert "profiler sync" in str(spec)


def test_the_lab_tagged_h200_trace_pairs_every_wait_and_names_the_polls():
    """A streams job's trace on the H200 with the sync records on (session 5, device run 3)."""
    events = trace.load(
        Path(__file__).parents[1] / "fixtures" / "h200" / "streams-sync-trace.json.gz"
    )
    timeline = trace.timeline(events, "variant:correct")
    v = VariantResult("correct", "", True, 1, 0, (0.0,), 0, (1.0,), (1.0,), timeline)
    result = replace(_result(()), variants=(v,))
    frame = sync_frames.sync_frame(result)
    assert list(frame["agreement"]) == [
        "agree (wait_on_stream unresolved)",
        "agree (wait_on_stream unresolved)",
        "agree",
    ]
    assert "on side, event" in frame["profiler's record"][0]
    assert "on default, event" in frame["profiler's record"][1]
