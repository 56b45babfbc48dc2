"""Statistics, typed-result round trips, tidy frames and Altair specs (via chart.to_dict())."""

import pytest

from runtime_lab import registry
from runtime_lab.glossary import units
from runtime_lab.results import Timing, from_plain, stats, to_plain
from runtime_lab.streams.report import charts as streams_charts
from runtime_lab.streams.report import frames as streams_frames
from runtime_lab.streams.result import StreamsResult
from runtime_lab.view import charts, fmt, frames


def _timing(label="t", device=(1.0, 2.0, 3.0, 4.0, 100.0), host=(0.01, 0.02, 0.03, 0.02, 0.02)):
    return Timing(
        label, "cuda-events", device, host, first_call_ms=500.0, warmup=2, repeat=5, l2_flush=True
    )


def test_stats_median_iqr_and_noise():
    s = stats([1.0, 2.0, 3.0, 4.0, 100.0])
    assert (s.median, s.q1, s.q3, s.iqr, s.count) == (3.0, 2.0, 4.0, 2.0, 5)
    assert s.noisy  # IQR 2 on a median of 3
    assert not stats([10.0, 10.1, 10.2, 10.1]).noisy
    assert stats([]) is None
    assert stats([5.0]).iqr == 0


def test_first_call_is_not_a_sample():
    t = _timing()
    assert 500.0 not in t.device_ms and t.primary_ms == t.device_ms
    cpu = Timing("c", "host-wall", (), (1.0,), 9.0, 0, 1, False)
    assert cpu.primary_ms == (1.0,)


def _result():
    return StreamsResult(
        device="cuda:0",
        streams_supported=True,
        max_abs_diff=0.0,
        tolerance_passed=True,
        rtol=1.3e-6,
        atol=1e-5,
        output_shape=(8, 8),
        steps=("default: produce x, y", "side: z = x @ y"),
        timings=(_timing("side"), _timing("default")),
        note="n",
    )


def test_result_round_trip_keeps_types():
    result = _result()
    again = from_plain(StreamsResult, to_plain(result))
    assert again == result and isinstance(again.timings[0], Timing)
    assert isinstance(again.output_shape, tuple)


def test_frames_are_long_form():
    result = _result()
    samples = frames.timing_samples(result.timings)
    assert len(samples) == 2 * (5 + 5)
    assert set(samples.clock) == {"device", "host"}
    summary = frames.timing_summary(result.timings)
    row = summary[(summary.label == "side") & (summary.clock == "device")].iloc[0]
    assert row.median_ms == 3.0 and row.first_call_ms == 500.0 and bool(row.noisy)
    steps = streams_frames.steps_frame(result.steps)
    assert list(steps.lane) == ["default", "side"] and list(steps.order) == [1, 2]


def test_timing_chart_spec():
    result = _result()
    spec = charts.timing_chart(
        frames.timing_samples(result.timings), frames.timing_summary(result.timings)
    ).to_dict()
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert marks == ["tick", "bar", "point"]
    assert spec["layer"][0]["encoding"]["x"]["scale"]["type"] == "log"
    assert spec["layer"][0]["encoding"]["x"]["field"] == "time_ms"
    assert spec["layer"][0]["encoding"]["yOffset"]["field"] == "clock"


def test_steps_chart_spec():
    spec = streams_charts.steps_chart(streams_frames.steps_frame(_result().steps)).to_dict()
    assert spec["layer"][0]["encoding"]["y"]["field"] == "lane"
    assert spec["layer"][1]["mark"]["type"] == "text"


def test_report_for_done_and_failed_runs():
    run = {
        "status": "done",
        "spec": {"experiment": "streams", "dtype": "float32"},
        "result": to_plain(_result()),
    }
    rep = registry.build_report(run)
    assert rep.ok and rep.headline == (
        "The side-stream matmul ordered by events matched the default-stream reference "
        "(max |side − reference| 0)"
    )
    assert [m.value for m in rep.metrics][:2] == ["0", "pass"]
    assert len(rep.charts) == 2 and rep.downloads[0][1].endswith(".json")
    failed = registry.build_report(
        {"status": "failed", "spec": {"experiment": "streams"}, "error": "boom"}
    )
    assert not failed.ok and failed.notes == ("boom",)


@pytest.mark.parametrize(
    ("ms", "text"),
    [(0.0000005, "0.5 ns"), (0.0123, "12.3 µs"), (2.5, "2.5 ms"), (105.795, "106 ms")],
)
def test_fmt_ms(ms, text):
    assert fmt.fmt_ms(ms) == text


@pytest.mark.parametrize(
    ("unit", "value", "text"),
    [
        ("ms", 0.8609, "861 µs"),
        ("ms", 1234.5, "1.23 s"),
        ("bytes", 1023 * 2**20, "1,023 MiB"),
        ("bytes", 1.5 * 2**30, "1.5 GiB"),
        ("s", 0.0348, "34.8 ms"),
    ],
)
def test_reports_and_compare_print_a_figure_the_same_way(unit, value, text):
    """A report (view.fmt) and compare (glossary.units) write one figure as one string."""
    shown = {"ms": fmt.fmt_ms, "bytes": fmt.fmt_bytes, "s": fmt.fmt_seconds}[unit](value)
    assert shown == units.show(unit, value) == text
