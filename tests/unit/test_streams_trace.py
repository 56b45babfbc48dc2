"""The trace parser on profiler output recorded on the H200: lanes, marks, sections, overlap."""

from pathlib import Path

import pytest

from runtime_lab.streams.info import STREAM_VARIANTS
from runtime_lab.streams.result import KernelSpan
from runtime_lab.streams.run import trace as streamtrace

FIXTURES = Path(__file__).parents[1] / "fixtures" / "h200"
LAB_TRACE = FIXTURES / "streams-lab-trace.json.gz"


@pytest.fixture(scope="module")
def lab_events():
    return streamtrace.load(LAB_TRACE)


def _gemm(kernels, lane):
    return [k for k in kernels if k.lane == lane and "gemm" in k.name.lower()]


def test_seed_trace_maps_lanes_by_record_function_not_stream_ids():
    t = streamtrace.timeline(streamtrace.load(FIXTURES / "streams-correct.json"))
    lanes = dict(t.lane_streams)
    # CUPTI ids on the H200 (7, 13) are not torch's Stream.stream_id (0, 3): the lab names them
    assert lanes == {"default": 7, "side": 13}
    assert len(_gemm(t.kernels, "side")) == 1 and not _gemm(t.kernels, "default")
    spin = next(k for k in t.kernels if "spin" in k.name)
    assert spin.lane == "default" and spin.start_us == 0.0  # times start at the first event


def test_seed_trace_marks_take_effect_in_stream_order():
    t = streamtrace.timeline(streamtrace.load(FIXTURES / "streams-correct.json"))
    kinds = [(m.kind, m.lane) for m in t.marks if m.kind != "sync"]
    assert kinds == [
        ("record", "default"),
        ("wait", "side"),
        ("record", "side"),
        ("wait", "default"),
    ]
    ready, side_wait, done, default_wait = [m for m in t.marks if m.kind != "sync"]
    producers_end = max(k.end_us for k in t.kernels if k.lane == "default" and k.start_us < 600)
    assert ready.device_us == pytest.approx(producers_end)  # after x, y are written
    assert side_wait.device_us >= ready.device_us  # the side stream is released by the record
    gemm = _gemm(t.kernels, "side")[0]
    assert done.device_us == pytest.approx(gemm.end_us)
    consumer = [k for k in t.kernels if k.lane == "default" and k.start_us > gemm.start_us]
    assert consumer and min(k.start_us for k in consumer) >= default_wait.device_us


def test_missing_producer_wait_trace_shows_the_matmul_inside_the_producer_window():
    t = streamtrace.timeline(streamtrace.load(FIXTURES / "streams-missing-producer-wait.json"))
    gemm = _gemm(t.kernels, "side")[0]
    writes = [k for k in t.kernels if "distribution" in k.name]
    assert writes and gemm.end_us < min(k.start_us for k in writes)  # read before written
    assert not [m for m in t.marks if m.kind == "wait" and m.lane == "side"]


def test_lab_trace_has_a_section_per_variant_and_case(lab_events):
    names = [name for name, _, _ in streamtrace.sections(lab_events)]
    assert [n for n in names if n.startswith("variant:")] == [
        f"variant:{v}" for v in STREAM_VARIANTS
    ]
    assert "host-blocking" in names and len([n for n in names if n.startswith("overlap:")]) == 4
    with pytest.raises(KeyError):
        streamtrace.timeline(lab_events, "variant:nonexistent")


@pytest.mark.parametrize("variant", list(STREAM_VARIANTS))
def test_lab_trace_lanes_per_variant(lab_events, variant):
    t = streamtrace.timeline(lab_events, f"variant:{variant}")
    lanes = {k.lane for k in t.kernels}
    assert lanes == ({"default"} if variant == "serial" else {"default", "side"})
    assert len({sid for _, sid in t.lane_streams}) == len(t.lane_streams)  # one id per lane
    assert all(k.end_us >= k.start_us >= 0 for k in t.kernels)


def test_lab_trace_correct_variant_marks(lab_events):
    t = streamtrace.timeline(lab_events, "variant:correct")
    marks = [(m.kind, m.label, m.lane) for m in t.marks if m.kind != "sync"]
    assert ("wait", "inputs_ready", "side") in marks and ("record", "work_done", "side") in marks
    assert ("wait", "work_done", "default") in marks


def test_lab_trace_wait_stream_marks_pair_records_with_waits(lab_events):
    t = streamtrace.timeline(lab_events, "variant:wait-stream")
    waits = [m for m in t.marks if m.kind == "wait_stream"]
    assert {m.lane for m in waits} == {"side", "default"}
    for wait in waits:
        record = next(m for m in t.marks if m.kind == "record" and m.label == wait.label)
        assert record.lane != wait.lane and wait.device_us >= record.device_us


def test_lab_trace_host_blocking_calls(lab_events):
    calls = {c.name: c for c in streamtrace.timeline(lab_events, "host-blocking").host_calls}
    wait, sync = calls["cudaStreamWaitEvent"], calls["cudaEventSynchronize"]
    assert wait.end_us - wait.start_us < 50 < sync.end_us - sync.start_us


def test_overlap_small_kernels_vs_gpu_filling(lab_events):
    small = streamtrace.timeline(lab_events, "overlap:small kernels:concurrent")
    big = streamtrace.timeline(lab_events, "overlap:GPU-filling:concurrent")
    serial = streamtrace.timeline(lab_events, "overlap:small kernels:serial")
    small_pct = streamtrace.overlap_pct(small.kernels, "a", "b")
    big_pct = streamtrace.overlap_pct(big.kernels, "a", "b")
    assert small_pct > 50 and big_pct < small_pct
    assert streamtrace.overlap_pct(serial.kernels, "a", "b") == 0.0  # one lane: nothing to overlap


def _span(lane, start, end):
    return KernelSpan("k", lane, 0, start, end, "kernel")


@pytest.mark.parametrize(
    ("spans", "expected"),
    [
        ([_span("a", 0, 10), _span("b", 0, 10)], 100.0),
        ([_span("a", 0, 10), _span("b", 10, 20)], 0.0),
        ([_span("a", 0, 10), _span("b", 5, 15)], 100 * 5 / 15),
        ([_span("a", 0, 4), _span("a", 2, 10), _span("b", 8, 12)], 100 * 2 / 12),
        ([_span("a", 0, 10)], 0.0),
    ],
)
def test_overlap_pct_definition(spans, expected):
    assert streamtrace.overlap_pct(tuple(spans), "a", "b") == pytest.approx(expected)


def test_lab_trace_missing_producer_wait_reads_while_the_producer_spins(lab_events):
    t = streamtrace.timeline(lab_events, "variant:missing-producer-wait")
    gemm = _gemm(t.kernels, "side")[0]
    spin = next(k for k in t.kernels if k.lane == "default" and "spin" in k.name)
    writes = [k for k in t.kernels if k.lane == "default" and "distribution" in k.name]
    assert gemm.start_us < spin.end_us < min(k.start_us for k in writes)
    assert not [k for k in t.kernels if k.lane == "side" and "spin" in k.name]
